"""What the explorer view tests share: reading widget text and recognising a PNG."""

import html
import re

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def text_of(html_value: str) -> str:
    """The visible text of an HTML widget value (tags dropped, entities decoded)."""
    return html.unescape(re.sub(r"<[^>]+>", "", html_value)).replace("\xa0", " ")


def descendants(widget) -> list:
    """Every widget inside ``widget`` (its children, theirs, ...), in the order a page shows them."""
    found = []
    for child in getattr(widget, "children", ()):
        found += [child, *descendants(child)]
    return found


def beside_the_figure(explorer) -> bool:
    """The explorer's guide is a column at the right of its figure, capped at the figure's height."""
    rows = [row for row in explorer.widget.children if explorer.guide_controls.box in getattr(row, "children", ())]
    return (
        len(rows) == 1
        and rows[0].children == (explorer.plot_output, explorer.guide_controls.box)
        and explorer.guide_controls.box.layout.max_height == explorer.plot_output.layout.min_height
    )


def legend_inside(fig) -> bool:
    """Every legend of a pyplot-free figure lies inside its frame once drawn (not cut off at the sides)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig).draw()
    boxes = [legend.get_window_extent() for legend in fig.legends]
    return bool(boxes) and all(0 <= box.x0 and box.x1 <= fig.bbox.width for box in boxes)
