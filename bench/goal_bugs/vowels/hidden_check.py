from text.counts import count_vowels
for w in ["banana", "sky", "AEIOU", "", "Queue"]:
    assert count_vowels(w) == sum(c in "aeiou" for c in w.lower()), w
