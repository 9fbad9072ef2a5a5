import * as DOMPurify from '@theia/core/shared/dompurify';
import * as markdownit from '@theia/core/shared/markdown-it';

/** Raw HTML from a model is never rendered; links open outside the IDE. */
const markdown = markdownit({ html: false, linkify: true, breaks: false });

export function renderChatMarkdown(text: string): string {
    const html = markdown.render(text);
    return DOMPurify.sanitize(html, { ADD_ATTR: ['target'] });
}
