from letters import count_vowels

for s in ["", "AEIOU", "xyz", "Queue", "rhythm AND blues"]:
    assert count_vowels(s) == sum(c in "aeiouAEIOU" for c in s), s
