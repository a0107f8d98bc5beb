"""Stops a page's own navigations of its tab inside the page, before they reach the browser.

The route handler (:class:`render._FirstNavigationOnly`) aborts a later
navigation of the tab when its request arrives. That is enough once the
document has loaded (``onload``, a timer, a meta refresh), but a navigation
started while the document is still being parsed - a script setting
``location.href``, ``location.reload()``, a link clicked or a form submitted
from an inline script - makes Chromium stop loading the document: aborted,
the new navigation leaves a page with no body whose ``load`` never comes, and
the render ran out of time.

The Navigation API's ``navigate`` event comes first, in the page, for every
navigation the document starts itself; cancelled there (``preventDefault``),
the navigation never begins and the parser goes on. Same-document
navigations (``#fragment``, ``history.pushState``) are left alone: the page
stays where it is either way; so are downloads, which the browser cancels. Frames inside the page are not touched.
The listener is added before any script of the page runs, so it is the first
one: the page cannot stop it from seeing the event. The count of stopped
navigations is exact but for those of the last 0.2 s of a page that navigates
more than 20 times (counted in batches; see ``_FLUSH_MS``).
"""

from __future__ import annotations

from typing import Any, Protocol

_BINDING = "__visionevalNavigation"
_MAX_RECORDED = 20
_FLUSH_MS = 200  # past the first URLs, stopped navigations are counted this often

HOLD_NAVIGATIONS = f"""
(() => {{
  const report = window.{_BINDING};
  try {{ delete window.{_BINDING}; }} catch (e) {{}}
  if (window !== window.top || typeof navigation === 'undefined') return;
  // Each binding call is a message to the renderer's event loop, which all pages share: a page that
  // navigates in a loop reports its first URLs one by one, then counts in batches, a few a second.
  let reported = 0, pending = 0, flushing = false;
  const send = (url, count) => {{ try {{ report(String(url), count); }} catch (e) {{}} }};
  const stop = (url) => {{
    if (reported < {_MAX_RECORDED}) {{ reported += 1; send(url, 1); return; }}
    pending += 1;
    if (flushing) return;
    flushing = true;
    setTimeout(() => {{ flushing = false; const count = pending; pending = 0; send('', count); }}, {_FLUSH_MS});
  }};
  navigation.addEventListener('navigate', (event) => {{
    // A download (a link with download=) is left to the browser, which cancels and counts it.
    if (!event.cancelable || event.destination.sameDocument || event.downloadRequest !== null) return;
    event.preventDefault();
    stop(event.destination.url);
  }});
  // A form submitted while parsing aborts the document even when its navigation is cancelled:
  // it is stopped before it begins (a submit button's event, and form.submit(), which has none).
  window.addEventListener('submit', (event) => {{
    event.preventDefault();
    stop(event.target && event.target.action);
  }}, true);
  HTMLFormElement.prototype.submit = function () {{ stop(this.action); }};
}})();
"""


class StoppedNavigations(Protocol):
    navigations_stopped: int
    navigations_stopped_to: list[str]


async def hold_navigations(context: Any, result: StoppedNavigations, max_url: int) -> None:
    """Before the context's first page: its tab's own cross-document navigations are stopped and counted in ``result``."""

    def stopped(source: Any, url: str, count: int) -> None:
        result.navigations_stopped += max(0, int(count))
        if url and len(result.navigations_stopped_to) < _MAX_RECORDED:
            result.navigations_stopped_to.append(str(url)[:max_url])

    await context.expose_binding(_BINDING, stopped)
    await context.add_init_script(HOLD_NAVIGATIONS)
