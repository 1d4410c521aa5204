"""wordpieces: WordPiece tokenization and vocabulary learning (public names only)."""
