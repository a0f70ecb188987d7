from fixloop.core.model import Frame
from fixloop.core.model import TestResult as Result
from fixloop.core.signature import abstract_message, failure_signature
from fixloop.adapters.memory.describe import describe


def test_abstract_message_hides_names_and_literals() -> None:
    assert abstract_message("assert total_price == 90.0") == abstract_message("assert cost == 4")
    assert abstract_message("assert 90.0 == 81.0") == "assert <num> == <num>"
    assert abstract_message("'NoneType' object has no attribute 'name'") == "<str> object has no attribute <str>"
    assert abstract_message("Stock.ship() missing 1 required positional argument: 'qty'") == \
        "<id>() missing <num> required positional argument: <str>"
    assert abstract_message("list index out of range") == "list index out of range"


def test_failure_signature_uses_the_innermost_project_frame_statement() -> None:
    sources = {"shop/fees.py": "LIMIT = 3\n\ndef price(a):\n    if a > LIMIT:\n        return 1\n    return a[0]\n",
               "tests/test_fees.py": "def test_p():\n    assert price(5) == 1\n"}
    result = Result("tests/test_fees.py::test_p", "failed", 0.0, "TypeError", "'int' object is not subscriptable",
                        (Frame("tests/test_fees.py", 2, "test_p"), Frame("shop/fees.py", 6, "price"),
                         Frame("/usr/lib/python3/x.py", 1, "y", in_project=False)))
    info = describe(result, sources)
    assert info.shape == "return ID [ NUM ]"
    assert info.statement == "return a[0]"
    assert info.frame == "shop/fees.py:6"
    assert info.signature == failure_signature("TypeError", "'int' object is not subscriptable", "return ID [ NUM ]")
    assert info.signature == "TypeError: <str> object is not subscriptable @ return ID [ NUM ]"
