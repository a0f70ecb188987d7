"""Hidden cases for pluggy: call order of implementations, tryfirst/trylast, argument names, what registers."""

import pluggy
from pluggy._hooks import varnames

spec = pluggy.HookspecMarker("x")
impl = pluggy.HookimplMarker("x")


class Spec:
    @spec
    def h(self, arg):
        pass


def order(*kinds):
    """Register one plugin per kind ('', 'first', 'last') in turn; return the names in call order."""
    pm = pluggy.PluginManager("x")
    pm.add_hookspecs(Spec)
    for n, kind in enumerate(kinds):
        opts = {"tryfirst": kind == "first", "trylast": kind == "last"}
        plugin = type(f"P{n}", (), {"h": impl(**opts)(lambda self, arg, n=n: f"{n}{kind}")})
        pm.register(plugin())
    return pm.hook.h(arg=1)


def registered_hooks(obj):
    pm = pluggy.PluginManager("x")
    pm.add_hookspecs(Spec)
    pm.register(obj)
    return sorted(h.name for h in pm.get_hookcallers(obj) or [])


class A:
    def m(self, x, y=1, *, z=2):
        pass


class WithAttr:
    h = impl(lambda arg: 1)  # a plain function set as a class attribute still registers
    not_a_hook = 3


CASES = {
    "plain": lambda: order("", "", ""),
    "first_last": lambda: order("", "first", "", "last", ""),
    "two_first": lambda: order("first", "", "first"),
    "first_only": lambda: order("first", "first"),
    "last_only": lambda: order("last", "last", ""),
    "one_then_first": lambda: order("", "first"),
    "varnames_method": lambda: varnames(A().m),
    "varnames_func": lambda: varnames(lambda a, b=1: None),
    "varnames_class": lambda: varnames(A),
    "impl_defaults": lambda: sorted(impl(lambda: None).x_impl.items()),
    "impl_tryfirst": lambda: impl(tryfirst=True)(lambda: None).x_impl["tryfirst"],
    "registers": lambda: registered_hooks(WithAttr()),
}
