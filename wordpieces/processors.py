"""The post-processors, under HF ``tokenizers.processors``' names.

A re-export of ``wordpieces.pipeline.processors`` (``TemplateProcessing``,
``BertProcessing``) and ``wordpieces.pipeline.extra_processors`` (``RobertaProcessing``,
``Sequence``): they add the special tokens, join pairs and set the type ids.

>>> from wordpieces import processors
>>> post = processors.TemplateProcessing(single="[CLS] $A [SEP]",
...                                      special_tokens=[("[CLS]", 1), ("[SEP]", 2)])
>>> post.apply_ids([7, 8], None, add_special_tokens=True)
[1, 7, 8, 2]

``PostProcessor`` is the protocol every post-processor meets (``isinstance`` works).

Not here: HF's ``ByteLevel`` post-processor (byte-level models are not supported: a
``tokenizer.json`` with it is refused, naming the JSON path).
"""

from .pipeline.extra_processors import ProcessorSequence as Sequence
from .pipeline.extra_processors import RobertaProcessing
from .pipeline.processors import BertProcessing, PostProcessor, TemplateProcessing

__all__ = ["BertProcessing", "PostProcessor", "RobertaProcessing", "Sequence",
           "TemplateProcessing"]
