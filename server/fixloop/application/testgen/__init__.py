"""Tests for one function: characterization tests recorded in the sandbox, and property tests."""
