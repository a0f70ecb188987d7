"""Hidden checks: used only by the learning benchmark to judge a fix, never shown to fixloop."""

from recipes.scale import Ingredient, Recipe, scale, shopping_list, to_buy
from recipes.units import GRAMS, convert


def soup() -> Recipe:
    return Recipe("Soup", 3, [Ingredient("leeks", 450, "g"), Ingredient("stock", 1.2, "l"),
                              Ingredient("cream", 100, "ml", optional=True), Ingredient("salt", 1, "tsp"),
                              Ingredient("chives", 5, "g", optional=True)],
                  ["Chop the leeks.", "Sweat them.", "Add the stock.", "Simmer 20 minutes.", "Blend."])


def check_missing_not() -> None:
    assert to_buy(soup(), set(), 3) == ["450 g leeks", "1.2 l stock", "1 tsp salt"]
    assert to_buy(soup(), {"salt", "cream"}, 3) == ["450 g leeks", "1.2 l stock"]
    assert to_buy(soup(), {"leeks", "stock", "salt", "chives"}, 6) == []
    assert to_buy(soup(), {"pepper"}, 9) == ["1.35 kg leeks", "3.6 l stock", "3 tsp salt"]


def check_wrong_op() -> None:
    for serves, people in ((3, 6), (4, 1), (3, 2), (5, 5), (2, 7)):
        recipe = Recipe("Soup", serves, soup().ingredients)
        got = scale(recipe, people)
        for before, after in zip(recipe.ingredients, got):
            assert abs(after.quantity - before.quantity * people / serves) < 0.006, (serves, people, before.name)
            assert (after.name, after.unit, after.optional) == (before.name, before.unit, before.optional)


def check_off_by_one() -> None:
    recipe = soup()
    for n, text in enumerate(recipe.steps, start=1):
        assert recipe.step(n) == f"{n}/5: {text}", n
    for n in (0, 6, -1):
        try:
            recipe.step(n)
        except IndexError:
            continue
        raise AssertionError(f"step {n} exists")


def check_wrong_name() -> None:
    for unit in GRAMS:
        for to in GRAMS:
            for quantity in (0.5, 1, 3, 250):
                assert convert(quantity, unit, to) == round(quantity * GRAMS[unit] / GRAMS[to], 2), (unit, to)
    assert shopping_list([soup()], 6) == {"leeks": 900.0, "chives": 10.0}
    assert shopping_list([Recipe("Stew", 4, [Ingredient("beef", 2, "lb")])], 4) == {"beef": 907.18}
