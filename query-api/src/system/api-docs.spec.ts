import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { mountApiDocs } from './api-docs.ts';

describe('the API page under its Content Security Policy', () => {
  it('lists the hash of each inline script and style, loads nothing from elsewhere, and may not be framed', async () => {
    const app = express();
    mountApiDocs(app, 'http://cairn.test');
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/docs/`).finally(() => server.close());
    expect(res.status).toBe(200);
    const html = await res.text();
    const policy = Object.fromEntries(
      String(res.headers.get('content-security-policy'))
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([name, ...values]) => [name, values]),
    ) as Record<string, string[]>;
    expect(policy['default-src']).toEqual(["'none'"]);
    expect(policy['frame-ancestors']).toEqual(["'none'"]);
    expect(policy['connect-src']).toEqual(["'self'"]);
    const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
    for (const tag of ['script', 'style'] as const) {
      const blocks = [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((m) => m[1] ?? '');
      expect(blocks).toHaveLength(1);
      expect(policy[`${tag}-src`]).toEqual(blocks.map(hash));
    }
    // Nothing the policy would block: no external assets, no inline handlers or style attributes.
    expect(html).not.toMatch(/<(script|link|img|iframe)[^>]*\s(src|href)=/i);
    expect(html).not.toMatch(/\son[a-z]+=|\sstyle=/i);
    expect([...html.matchAll(/fetch\('([^']*)'\)/g)].map((m) => m[1])).toEqual(['/api/schema/']);
  });
});
