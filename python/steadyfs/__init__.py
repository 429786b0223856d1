"""steadyfs: real-time flash file system tools (device models, benchmarks, analysis).

The file system in an image file, in the habits of ``os`` and ``io``
(docs/PYTHON.md)::

    with steadyfs.Image.create("fs.img", device="mt29f1g01", blocks=64) as img:
        with img.open("/a.txt", "w") as f:
            f.write("hello")
"""

from steadyfs.image import DirEntry, DiskUsage, FileIO, Image

__version__ = "0.1.0"

__all__ = ["DirEntry", "DiskUsage", "FileIO", "Image", "__version__"]
