"""The post-processors, under HF ``tokenizers.processors``' names.

A re-export of ``wordpieces.pipeline.processors`` (``TemplateProcessing``,
``BertProcessing``) and ``wordpieces.pipeline.extra_processors`` (``RobertaProcessing``,
``Sequence``): they add the special tokens, join pairs and set the type ids.

>>> from wordpieces import processors
>>> post = processors.TemplateProcessing(single="[CLS] $A [SEP]",
...                                      special_tokens=[("[CLS]", 1), ("[SEP]", 2)])
>>> post.plan(add_special_tokens=True).ids([7, 8], None)
[1, 7, 8, 2]

Each has a ``plan(add_special_tokens)``: what it puts around one sequence and a pair
(``ProcessorPlan``), which the fast paths run. A post-processor of your own needs only
``process``, ``added_tokens`` and ``to_config``; without ``plan`` it runs on the
pure-Python reference path.

``PostProcessor`` is the protocol every post-processor meets (``isinstance`` works).

Not here: HF's ``ByteLevel`` post-processor (byte-level models are not supported: a
``tokenizer.json`` with it is refused, naming the JSON path).
"""

from .pipeline.extra_processors import ProcessorSequence as Sequence
from .pipeline.extra_processors import RobertaProcessing
from .pipeline.processors import BertProcessing, PostProcessor, TemplateProcessing

__all__ = ["BertProcessing", "PostProcessor", "RobertaProcessing", "Sequence",
           "TemplateProcessing"]
