"""Sparring."""
