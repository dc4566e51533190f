#!/usr/bin/env python3
"""Print, relative to the source root, the files a meson.build appends to a
list: meson-files.py TOP LISTNAME meson.build... (pms_sources += files(...))."""
import os
import re
import sys

top, name = sys.argv[1], sys.argv[2]
for mb in sys.argv[3:]:
    path = os.path.join(top, mb)
    text = re.sub(r'#.*', '', open(path).read())
    for m in re.finditer(re.escape(name) + r'\s*\+=\s*files\(([^)]*)\)', text):
        for f in re.findall(r"'([^']+)'", m.group(1)):
            print(os.path.relpath(os.path.join(os.path.dirname(path), f), top))
