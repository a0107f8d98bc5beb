"""Pages that misbehave on purpose, and a normal one to render beside them (tests and benchmarks share them)."""

from __future__ import annotations

NORMAL = "<h1>Quarterly report</h1><p>Sales rose in every region.</p>"
HOSTILE = {
    "busy loop": "<p>spinning</p><script>while (true) {}</script>",
    "huge DOM": (
        "<body><script>const box = document.createElement('div');"
        "for (let i = 0; i < 200000; i++) {"
        " const d = document.createElement('div'); d.textContent = 'row ' + i; box.appendChild(d); }"
        "document.body.appendChild(box);</script></body>"
    ),
    "navigation loop": "<p>leaving</p><script>setInterval(() => { location.href = 'p' + Math.random() + '.html'; }, 1)</script>",
}
