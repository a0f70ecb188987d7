from .cart import Cart
from .tax import with_tax
