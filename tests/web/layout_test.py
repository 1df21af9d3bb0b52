"""The web board fits the window: one headless Chromium on one real `qchess serve`.

At 1280x800 and 1366x768 the whole board, the move box and the coach's buttons are inside the
window without scrolling; on a phone (390x844, emulated as a touch device) nothing scrolls
sideways and the board fits the width. The evaluation bar's label meets WCAG AA contrast
(4.5:1), computed from its computed colours, when White wins, when White loses, when the game
is over and when the coach is closed (fair play). A screenshot of each size is saved.

Usage: layout_test.py QCHESS_BINARY ARTIFACT_DIR
"""

import os
import sys
import tempfile

from selenium.webdriver.common.by import By

from board_test import serve
from friends_test import Player

DESKTOPS = [(1280, 800), (1366, 768)]
PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True}
PHONE_AGENT = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 "
               "(KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1")

# White's queen faces Black's undefended rook: White wins; after e1f2 Black takes it.
COACH_GAME = "?white=human&black=human&seed=2&coach-depth=1&fen=3r4/8/8/8/8/8/k7/3QK3%20w%20-%20-%200%201"

# The parts a player needs in view: the board, the move box, the coach's buttons.
NEEDED = ["board-wrap", "move-form", "hint", "best-line", "review"]

RECTS = """
const rect = (id) => { const r = document.getElementById(id).getBoundingClientRect();
  return { left: r.left, top: r.top, right: r.right, bottom: r.bottom }; };
return { width: innerWidth, height: innerHeight, scrollWidth: document.documentElement.scrollWidth,
  scrollX: scrollX, scrollY: scrollY, rects: Object.fromEntries(arguments[0].map((id) => [id, rect(id)])) };
"""

CONTRAST = """
// WCAG 2 contrast of the label's colour on the first opaque background under its text, at the
// text's left end, middle and right end (the bar's fill may lie under part of it): the lowest.
const parse = (text) => text.match(/[\\d.]+/g).map(Number);
const alpha = (element) => parse(getComputedStyle(element).backgroundColor)[3] ?? 1;
const channel = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
const label = document.getElementById("eval-label");
const fg = parse(getComputedStyle(label).color);
if ((fg[3] ?? 1) < 1) return { error: "a translucent text colour" };
const range = document.createRange();
range.selectNodeContents(label);
const text = range.getBoundingClientRect();
const found = { ratio: Infinity, color: getComputedStyle(label).color, text: label.textContent, behind: [] };
for (const x of [text.left + 2, (text.left + text.right) / 2, text.right - 2]) {
  const under = document.elementsFromPoint(x, (text.top + text.bottom) / 2).filter((e) => alpha(e) > 0);
  if (under.length === 0 || alpha(under[0]) < 1) return { error: `a translucent background at x = ${x}` };
  const bg = parse(getComputedStyle(under[0]).backgroundColor);
  const [a, b] = [luminance(fg), luminance(bg)].sort((p, q) => q - p);
  found.ratio = Math.min(found.ratio, (a + 0.05) / (b + 0.05));
  found.behind.push(getComputedStyle(under[0]).backgroundColor);
}
return found;
"""


def emulate(board, metrics, agent=None):
    driver = board.driver
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": metrics["mobile"]})
    if agent:
        driver.execute_cdp_cmd("Emulation.setUserAgentOverride", {"userAgent": agent})


def check_desktops(board, artifacts):
    for width, height in DESKTOPS:
        emulate(board, {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        board.open("?white=human&black=human&seed=1")
        page = board.driver.execute_script(RECTS, NEEDED)
        board.driver.save_screenshot(os.path.join(artifacts, f"layout-{width}x{height}.png"))
        assert (page["width"], page["height"]) == (width, height), page
        assert page["scrollX"] == 0 and page["scrollY"] == 0, page
        for name, r in page["rects"].items():
            inside = r["left"] >= 0 and r["top"] >= 0 and r["right"] <= width and r["bottom"] <= height
            assert inside, f"{width}x{height}: {name} is not inside the window: {r}"
        board_rect = page["rects"]["board-wrap"]
        print(f"ok   {width}x{height}: board ({board_rect['right'] - board_rect['left']:.0f} px), move box and "
              f"coach buttons in view without scrolling (lowest at {max(r['bottom'] for r in page['rects'].values()):.0f})")


def check_phone(board, artifacts):
    emulate(board, PHONE, PHONE_AGENT)
    board.open("?white=human&black=human&seed=1")
    page = board.driver.execute_script(RECTS, ["board-wrap"])
    board.driver.save_screenshot(os.path.join(artifacts, "layout-phone.png"))
    assert board.driver.execute_script("return navigator.maxTouchPoints") > 0, "emulated as a touch device"
    assert page["width"] == PHONE["width"], page
    assert page["scrollWidth"] <= page["width"], f"the page scrolls sideways: {page}"
    rect = page["rects"]["board-wrap"]
    assert rect["left"] >= 0 and rect["right"] <= page["width"], f"the board does not fit the width: {rect}"
    assert rect["right"] - rect["left"] >= 0.8 * page["width"], f"the board leaves the width unused: {rect}"
    print(f"ok   phone 390x844: no sideways scroll (page {page['scrollWidth']} px wide), "
          f"board {rect['left']:.0f} to {rect['right']:.0f} px")


def check_label_contrast(board):
    emulate(board, {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    board.open(COACH_GAME)
    ratios = []

    def measure(state, ply, winning):
        bar = board.driver.find_element(By.CSS_SELECTOR, '[data-testid="eval-bar"]')
        if ply is not None:
            board.wait(lambda: bar.get_attribute("data-ply") == ply, f"the bar at ply {ply}")
        if winning is not None:
            expected = float(bar.get_attribute("data-white-expected"))
            assert (expected > 0.8) if winning else (expected < 0.2), (state, expected)
        found = board.driver.execute_script(CONTRAST)
        assert "error" not in found, found
        assert found["ratio"] >= 4.5, f"{state}: contrast {found['ratio']:.2f} ({found})"
        ratios.append(f"{state} {found['ratio']:.1f}:1")

    measure("winning", "0", True)
    board.move("e1", "f2")
    measure("losing", "1", False)
    # The rook takes the king: the game is over, and the label says so.
    board.open("?white=human&black=human&seed=2&fen=4k3/8/8/8/8/8/8/4R1K1%20w%20-%20-%200%201")
    board.type_move("e1xe8")
    measure("over", "1", None)
    assert "game over" in board.text("eval-label"), board.text("eval-label")
    # A game with a friend: the coach is closed (fair play), and the label says so.
    board.open("?seats=white&white=human&black=human&seed=2")
    board.wait(lambda: "fair play" in board.text("eval-label"), "the closed coach's label")
    measure("closed", None, None)
    print(f"ok   the evaluation label's contrast: {', '.join(ratios)}")


def main():
    qchess, artifacts = sys.argv[1], sys.argv[2]
    os.makedirs(artifacts, exist_ok=True)
    downloads = tempfile.mkdtemp(prefix="qchess-layout-")
    server, url = serve(qchess, ["--db", ":memory:", "--seed", "5"])
    board = Player("layout", url, downloads)
    try:
        for step in [lambda: check_desktops(board, artifacts), lambda: check_phone(board, artifacts),
                     lambda: check_label_contrast(board)]:
            step()
            board.collect_console()
            assert not board.console, f"console errors: {board.console}"
    except Exception:
        board.driver.save_screenshot(os.path.join(artifacts, "layout-failure.png"))
        raise
    finally:
        board.driver.quit()
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
