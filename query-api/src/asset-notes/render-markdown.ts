import MarkdownIt from 'markdown-it';

/**
 * Markdown to HTML that is safe to put in a page: raw HTML in the source is escaped, not
 * passed through, and markdown-it's link check drops `javascript:`, `vbscript:`, `file:`
 * and non-image `data:` URLs. No script can come out of it, and nothing loads by itself:
 * an image is written as a link to its address (its alt text the link's text), so a
 * reader's browser fetches nothing from elsewhere unless the reader clicks (no tracking
 * pixels); a `data:` image, which only an image tag would show, is left as its alt text
 * (docs/asset-notes.md).
 */
const markdown = new MarkdownIt({ html: false, linkify: true, typographer: false });

markdown.renderer.rules.image = (tokens, index, options, env, self) => {
  const token = tokens[index];
  if (!token) return '';
  const source = token.attrGet('src') ?? '';
  const text = self.renderInlineAsText(token.children ?? [], options, env) || source;
  const escaped = markdown.utils.escapeHtml(text);
  if (!/^https?:\/\//i.test(source)) return escaped;
  const title = token.attrGet('title');
  const titleAttribute = title ? ` title="${markdown.utils.escapeHtml(title)}"` : '';
  return `<a href="${markdown.utils.escapeHtml(source)}"${titleAttribute}>${escaped}</a>`;
};

export function renderMarkdown(source: string): string {
  return markdown.render(source);
}
