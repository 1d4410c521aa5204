"""Scripts that probe HF ``tokenizers`` and write ``wordpieces/pipeline/data/``."""
