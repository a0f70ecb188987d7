import pytest

from recipes.scale import Ingredient, Recipe, portion_weight, scale, shopping_list, to_buy


def pancakes() -> Recipe:
    return Recipe(
        title="Pancakes",
        serves=4,
        ingredients=[
            Ingredient("flour", 200, "g"),
            Ingredient("milk", 300, "ml"),
            Ingredient("eggs", 2, "pcs"),
            Ingredient("blueberries", 100, "g", optional=True),
        ],
        steps=["Whisk the eggs and milk.", "Fold in the flour.", "Fry in a hot pan."],
    )


def test_scaling_up_for_more_people():
    flour, milk, eggs, berries = scale(pancakes(), 6)
    assert (flour.quantity, milk.quantity, eggs.quantity) == (300, 450, 3)
    assert berries.optional


def test_scaling_keeps_names_and_units():
    assert [(i.name, i.unit) for i in scale(pancakes(), 2)] == [
        ("flour", "g"), ("milk", "ml"), ("eggs", "pcs"), ("blueberries", "g")]


def test_to_buy_skips_the_pantry_and_the_optional():
    assert to_buy(pancakes(), {"flour"}, 4) == ["300 ml milk", "2 pcs eggs"]


def test_shopping_list_adds_up_the_weights():
    bread = Recipe("Bread", serves=8, ingredients=[Ingredient("flour", 1, "kg"), Ingredient("water", 600, "ml")])
    assert shopping_list([pancakes(), bread], 8) == {"flour": 1400.0, "blueberries": 200.0}


def test_portion_weight_counts_what_is_weighed():
    assert portion_weight(pancakes()) == 75.0


def test_steps_are_numbered_from_one():
    recipe = pancakes()
    assert recipe.step(1) == "1/3: Whisk the eggs and milk."
    assert recipe.step(3) == "3/3: Fry in a hot pan."


def test_there_is_no_step_zero():
    with pytest.raises(IndexError):
        pancakes().step(0)
