"""The bridges to PettingZoo and OpenSpiel."""
