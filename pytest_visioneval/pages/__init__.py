"""HTML outputs: extraction from the reply, sandboxed rendering in Chromium, derived captures."""
