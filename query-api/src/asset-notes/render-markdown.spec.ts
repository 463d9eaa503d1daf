import { describe, expect, it } from 'vitest';
import { renderMarkdown } from './render-markdown.ts';

describe('renderMarkdown', () => {
  it('loads no image: a remote one becomes a link to it, with its alt text', () => {
    const html = renderMarkdown('Look: ![a pixel](https://tracker.example/p.gif "seen") and ![](http://tracker.example/q.png)');
    expect(html).not.toContain('<img');
    expect(html).toContain('<a href="https://tracker.example/p.gif" title="seen">a pixel</a>');
    expect(html).toContain('<a href="http://tracker.example/q.png">http://tracker.example/q.png</a>');
  });

  it('turns protocol-relative, relative and data: images into their alt text only', () => {
    for (const source of ['![x](//tracker.example/p.gif)', '![x](/api/p.gif)', '![x](data:image/png;base64,iVBORw0KGgo=)']) {
      const html = renderMarkdown(source);
      expect(html, source).not.toContain('<img');
      expect(html, source).not.toContain('href');
      expect(html, source).toBe('<p>x</p>\n');
    }
  });

  it('escapes what the alt text and the address carry', () => {
    const html = renderMarkdown('![<b>"hi"</b>](https://x.example/a.png?a=1&b="2")');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>');
    expect(html).toContain('&lt;b&gt;');
  });

  it('still escapes raw HTML, images included', () => {
    const html = renderMarkdown('<img src="https://tracker.example/p.gif"> <script>alert(1)</script>');
    expect(html).not.toMatch(/<img|<script/);
  });
});
