import MarkdownIt from 'markdown-it';

/**
 * Markdown to HTML that is safe to put in a page: raw HTML in the source is escaped, not
 * passed through, and markdown-it's link check drops `javascript:`, `vbscript:`, `file:`
 * and non-image `data:` URLs. No script can come out of it (docs/asset-notes.md).
 */
const markdown = new MarkdownIt({ html: false, linkify: true, typographer: false });

export function renderMarkdown(source: string): string {
  return markdown.render(source);
}
