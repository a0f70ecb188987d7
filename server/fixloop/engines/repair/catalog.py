"""Every operator the search may use, with its built-in prior: the one-token catalog (operators.py) and
the ingredient operators that build edits from the program's own code (ingredients.py, reshape.py,
conditions.py). The priors put the ingredient operators after the one-token ones at the same line: they
propose more, and more of what they propose could pass weak tests by accident."""

from __future__ import annotations

from fixloop.engines.repair.conditions import loop_condition, none_check, return_check, widen_condition
from fixloop.engines.repair.ingredients import insert_statement
from fixloop.engines.repair.literals import binding_name, binding_value, format_precision
from fixloop.engines.repair.members import add_member
from fixloop.engines.repair.offsets import argument_offset, assignment_offset, operand_offset, return_offset
from fixloop.engines.repair.operators import DEFAULT_PRIORS as BASIC_PRIORS, OPERATORS as BASIC, Operator
from fixloop.engines.repair.reshape import call_argument, clamp, reshape_name, same_shape

INGREDIENT_OPERATORS: tuple[Operator, ...] = (
    insert_statement, reshape_name, clamp, same_shape, call_argument, loop_condition, widen_condition, return_check,
)

INGREDIENT_PRIORS: dict[str, float] = {
    "insert_statement": 0.35, "reshape_name": 0.35, "clamp": 0.35, "same_shape": 0.3, "call_argument": 0.4,
    "loop_condition": 0.6, "widen_condition": 0.4, "return_check": 0.45,
}

# Values bound at import (bindings.py makes their lines suspects) and +/- 1 on returns, call arguments
# and factors: one-token edits, but each fires at many places, so below the catalog's own offsets; a
# factor's offset below the catalog's later variants at the line too (`x * 2 - 1`: `-` -> `+` before
# `(x + 1) * 2 - 1`, which passes the same tests).
VALUE_OPERATORS: tuple[Operator, ...] = (binding_value, binding_name, return_offset, argument_offset, operand_offset,
                                         assignment_offset, none_check, format_precision, add_member)
VALUE_PRIORS: dict[str, float] = {"binding_value": 0.8, "return_offset": 0.55, "argument_offset": 0.45,
                                  "operand_offset": 0.3, "assignment_offset": 0.4, "none_check": 0.6, "format_precision": 0.6,
                                  "add_member": 0.5}

OPERATORS: tuple[Operator, ...] = BASIC + VALUE_OPERATORS + INGREDIENT_OPERATORS
DEFAULT_PRIORS: dict[str, float] = {**BASIC_PRIORS, **VALUE_PRIORS, **INGREDIENT_PRIORS}
