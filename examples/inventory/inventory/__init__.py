"""Stock keeping for a small shop: items, stock levels, prices and reorder reports."""

from .pricing import line_total, order_total
from .stock import Stock
from .report import reorder_report

__all__ = ["Stock", "line_total", "order_total", "reorder_report"]
