import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { coerceFormBody } from './form-coercion.ts';

describe('form lists', () => {
  it('reads key[] like key after URL-encoded parsing', async () => {
    const { bodyParser } = await import('./body-parsing.ts');
    const express = (await import('express')).default;
    const request = (await import('supertest')).default;
    const app = express();
    app.post('/', bodyParser(1024), (req, res) => {
      res.json(coerceFormBody(z.object({ tags: z.array(z.string()) }), req.body as Record<string, unknown>));
    });
    const both = await request(app).post('/').type('form').send('tags[]=a&tags[]=b');
    expect(both.body).toEqual({ tags: ['a', 'b'] });
    const one = await request(app).post('/').type('form').send('tags[]=a');
    expect(one.body).toEqual({ tags: ['a'] });
  });
});
