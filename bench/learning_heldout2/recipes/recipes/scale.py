"""Recipes that scale to the table: servings, shopping, and one step at a time."""

from __future__ import annotations

from dataclasses import dataclass, field

from recipes.units import GRAMS, convert, pretty


@dataclass
class Ingredient:
    name: str
    quantity: float
    unit: str
    optional: bool = False


@dataclass
class Recipe:
    title: str
    serves: int
    ingredients: list[Ingredient]
    steps: list[str] = field(default_factory=list)

    def step(self, n: int) -> str:
        """Step `n` as the cook reads it, counting from 1."""
        if not 1 <= n <= len(self.steps):
            raise IndexError(f"{self.title} has {len(self.steps)} steps")
        return f"{n}/{len(self.steps)}: {self.steps[n - 1]}"


def scale(recipe: Recipe, people: int) -> list[Ingredient]:
    """The ingredients for `people` instead of the number the recipe serves."""
    factor = people / recipe.serves
    return [Ingredient(i.name, round(i.quantity * factor, 2), i.unit, i.optional) for i in recipe.ingredients]


def to_buy(recipe: Recipe, pantry: set[str], people: int) -> list[str]:
    """What to buy to cook for `people`: what the pantry lacks, less what the dish can do without."""
    return [f"{pretty(i.quantity, i.unit)} {i.name}" for i in scale(recipe, people)
            if i.name not in pantry and not i.optional]


def shopping_list(recipes: list[Recipe], people: int) -> dict[str, float]:
    """Grams of each weighed ingredient for cooking every recipe for `people`."""
    totals: dict[str, float] = {}
    for recipe in recipes:
        for item in scale(recipe, people):
            if item.unit in GRAMS:
                totals[item.name] = round(totals.get(item.name, 0.0) + convert(item.quantity, item.unit, "g"), 2)
    return totals


def portion_weight(recipe: Recipe) -> float:
    """Grams on each plate, counting only what is weighed."""
    weighed = [convert(i.quantity, i.unit, "g") for i in recipe.ingredients if i.unit in GRAMS]
    return round(sum(weighed) / recipe.serves, 1)
