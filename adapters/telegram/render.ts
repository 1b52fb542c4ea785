/**
 * Markdown → Telegram messages in the bot's parse mode (HTML or MarkdownV2),
 * each within 4,096 UTF-16 units after formatting (see the shared
 * MarkupRenderer for how chunks are cut and re-cut).
 */
import { MarkupRenderer } from "../common/markup-renderer.js";
import { createMarkdownLexer } from "./format.js";
import { HTML_DIALECT, type TelegramDialect } from "./format-dialect.js";
import { TELEGRAM_MAX_MESSAGE } from "./options.js";

export class TelegramRenderer extends MarkupRenderer {
  constructor(readonly dialect: TelegramDialect = HTML_DIALECT) {
    const lex = createMarkdownLexer();
    super({ format: (markdown) => dialect.fromMarkdown(markdown, lex), escape: dialect.escape, indicator: dialect.indicator }, TELEGRAM_MAX_MESSAGE, "utf16");
  }
}
