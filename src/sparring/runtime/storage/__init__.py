"""Data: locations (a local path or a storage URI), Parquet datasets with a contract, sealed
files and a store's secret key."""
