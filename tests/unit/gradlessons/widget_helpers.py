"""What the explorer view tests share: reading widget text and recognising a PNG."""

import html
import re

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def text_of(html_value: str) -> str:
    """The visible text of an HTML widget value (tags dropped, entities decoded)."""
    return html.unescape(re.sub(r"<[^>]+>", "", html_value)).replace("\xa0", " ")
