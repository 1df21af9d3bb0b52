"""The web board in headless Chromium against a real `qchess serve`.

Loads the board, splits a knight with the mouse (50% on both targets), merges it (the halves interfere so the knight is whole again), types a
capture with a forced outcome (the move list pairs the moves by number, the outcome marked), undoes it, analyses an entangled square and saves a screenshot,
downloads and loads a record, flips the board, and plays a short game against the computer to
a result; promotes with the chooser using only the keyboard, types an illegal move (a clear
message, the game unchanged), numbers a game that starts with Black to move from `1...`, and watches the computer play itself; asks the coach for the
evaluation bar, a hint and the best line, blunders, and steps through the review of the game's
marked moves. The browser console must stay
free of errors throughout, but for the one refused move. Last, a game on the remote provider
chosen in the backend chooser (a second `qchess serve`, whose jobs wait in a queue): a move shows
its waiting job until the job ends, a waiting move is canceled, and the visitor's games are listed
and open again with a click.

Usage: board_test.py QCHESS_BINARY ARTIFACT_DIR
"""

import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

TIMEOUT = 30.0


def serve(qchess, flags):
    """Starts `qchess serve` on a free port; returns the process and its URL."""
    server = subprocess.Popen([qchess, "serve", "--addr", "127.0.0.1:0", *flags],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = server.stdout.readline().strip()
    match = re.match(r"listening on (http://\S+)", line)
    if not match:
        server.kill()
        raise SystemExit(f"qchess serve did not start: {line!r}")
    return server, match.group(1)


def chromium(downloads):
    """A headless Chromium that saves downloads to `downloads` and keeps its console log."""
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000",
                 "--disable-gpu", "--force-device-scale-factor=1"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    options.add_experimental_option("prefs", {"download.default_directory": downloads,
                                              "download.prompt_for_download": False})
    service = Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    return webdriver.Chrome(options=options, service=service)


class Board:
    """One browser on one server, with the board's helpers."""

    def __init__(self, qchess, downloads):
        # A second server stands in for a remote provider the board's games may choose; its
        # jobs wait in its queue, so moves on it wait for their jobs.
        self.provider, provider_url = serve(qchess, ["--queue-delay-ms", "1500", "--db", ":memory:"])
        self.store = os.path.join(downloads, "games.db")
        self.server, self.url = serve(qchess, ["--seed", "11", "--game-backend", provider_url, "--db", self.store,
                                               "--game-answer-wait-ms", "100"])
        self.driver = chromium(downloads)
        self.console = []

    def close(self):
        self.driver.quit()
        for server in [self.server, self.provider]:
            server.terminate()
            server.wait(timeout=10)

    # ---- reading the page ----

    def wait(self, condition, what):
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            value = condition()
            if value:
                return value
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}")

    def idle(self):
        """Waits until no request is in flight."""
        self.wait(lambda: self.driver.execute_script(
            "return window.qchess && window.qchess.game !== null && window.qchess.busy === 0"), "the board to settle")

    def square(self, name):
        return self.driver.find_element(By.CSS_SELECTOR, f'#board [data-square="{name}"]')

    def probability(self, name):
        return float(self.square(name).get_attribute("data-probability"))

    def piece(self, name):
        return self.square(name).get_attribute("data-piece")

    def state(self):
        return self.driver.execute_script("return window.qchess.game")

    def text(self, test_id):
        return self.driver.find_element(By.CSS_SELECTOR, f'[data-testid="{test_id}"]').text

    def move_rows(self):
        """The move list's rows: each row's number and moves (with their outcome marks) as shown."""
        return self.driver.execute_script(
            "return Array.from(document.querySelectorAll('[data-testid=move-list] li'))"
            ".map(li => Array.from(li.children).map(part => part.textContent.trim()))")

    def collect_console(self):
        self.console += [entry for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"]

    # ---- acting ----

    def open(self, query=""):
        self.driver.get(f"{self.url}/{query}")
        self.idle()

    def click(self, name, shift=False):
        element = self.square(name)
        if shift:
            ActionChains(self.driver).key_down(Keys.SHIFT).click(element).key_up(Keys.SHIFT).perform()
        else:
            element.click()

    def move(self, *clicks):
        """Clicks squares (`+a3` = Shift-click) and waits for the move to be played."""
        plies = len(self.state()["moves"])
        for name in clicks:
            self.click(name.lstrip("+"), shift=name.startswith("+"))
        self.wait(lambda: len(self.state()["moves"]) > plies, f"the move {' '.join(clicks)}")
        self.idle()

    def type_move(self, text):
        plies = len(self.state()["moves"])
        box = self.driver.find_element(By.CSS_SELECTOR, '[data-testid="move-input"]')
        box.send_keys(text, Keys.ENTER)
        self.wait(lambda: len(self.state()["moves"]) > plies, f"the typed move {text}")
        self.idle()

    def button(self, test_id):
        self.driver.find_element(By.CSS_SELECTOR, f'[data-testid="{test_id}"]').click()


def close(a, b):
    return abs(a - b) < 1e-6


def check_load(board):
    board.open()
    squares = board.driver.find_elements(By.CSS_SELECTOR, "#board [data-square]")
    assert len(squares) == 64, len(squares)
    assert all(s.get_attribute("data-probability") is not None for s in squares)
    assert board.driver.title.startswith("qchess")
    assert close(board.probability("e2"), 1.0) and close(board.probability("e4"), 0.0)
    assert board.piece("b1") == "N" and board.piece("e8") == "k"
    first = squares[0].get_attribute("data-square")
    assert first == "a8", f"White at the bottom: the first square drawn is {first}"
    print("ok   the board loads: 64 squares with data-square and data-probability")


def check_split_and_merge(board):
    board.move("b1", "+a3", "+c3")
    assert close(board.probability("a3"), 0.5) and close(board.probability("c3"), 0.5), "split gives 50/50"
    assert close(board.probability("b1"), 0.0)
    pct = board.square("a3").find_element(By.CSS_SELECTOR, ".pct").get_attribute("textContent")
    assert pct == "50%", pct
    assert board.driver.find_elements(By.CSS_SELECTOR, '#links [data-link="a3-c3"]'), "the split pair is linked"
    assert board.state()["last_move"]["move"] == "b1^a3c3"
    board.type_move("e7e6")
    board.move("a3", "+c3", "b5")
    assert close(board.probability("b5"), 1.0) and close(board.probability("a3"), 0.0), "the halves interfere on b5"
    assert not board.driver.find_elements(By.CSS_SELECTOR, "#links line")
    print("ok   split with the mouse shows 50% on a3 and c3; the merge makes the knight whole on b5")


def check_capture_and_undo(board):
    board.type_move("d7d5")
    board.move("b5", "+a3", "+c3")
    board.type_move("a7a6")
    board.type_move("c3xd5.m1")
    last = board.state()["last_move"]
    assert last["move"] == "c3xd5.m1" and last["outcome"] == 1, last
    assert "measured m1" in board.text("last-move"), board.text("last-move")
    badge = board.square("d5").find_element(By.CSS_SELECTOR, ".outcome-badge")
    assert badge.get_attribute("data-outcome") == "1", "the outcome is marked on the target"
    assert close(board.probability("d5"), 1.0) and board.piece("d5") == "N"
    assert close(board.probability("a3"), 0.0), "the measurement collapsed the other half"
    assert board.driver.find_elements(By.CSS_SELECTOR, '#captured [data-captured="p"]'), "a black pawn is captured"
    assert board.move_rows() == [["1.", "b1^a3c3", "e7e6"], ["2.", "a3c3^b5", "d7d5"], ["3.", "b5^a3c3", "a7a6"],
                                 ["4.", "c3xd5.m1 ✓"]], board.move_rows()
    mark = board.driver.find_element(By.CSS_SELECTOR, '[data-testid="move-list"] .mv[data-ply="7"]')
    assert "outcome-1" in mark.get_attribute("class") and "measured m1" in mark.get_attribute("title")
    board.button("undo")
    board.wait(lambda: len(board.state()["moves"]) == 6, "the undo")
    board.idle()
    assert close(board.probability("a3"), 0.5) and close(board.probability("c3"), 0.5)
    assert board.piece("d5") == "p" and close(board.probability("d5"), 1.0)
    print("ok   a typed capture with outcome .m1 is played, shown and undone")


def check_analysis_and_screenshot(board, artifacts):
    board.type_move("g1^f3h3")
    board.type_move("g8^f6h6")
    board.type_move("e2e4")
    ActionChains(board.driver).move_to_element(board.square("c3")).perform()
    board.wait(lambda: "entangled with a3" in board.text("hover-info"), "the analysis of c3")
    previews = board.driver.find_elements(By.CSS_SELECTOR, '[data-testid="preview"] .mini')
    assert len(previews) == 2, "a preview for each outcome"
    occupied = board.driver.find_element(By.CSS_SELECTOR, '[data-preview="occupied"]').text
    assert "If c3 is measured occupied (50%)" in occupied, occupied
    links = board.driver.find_elements(By.CSS_SELECTOR, "#links line")
    assert len(links) >= 2, f"{len(links)} entangled pairs drawn"
    os.makedirs(artifacts, exist_ok=True)
    path = os.path.join(artifacts, "board.png")
    board.driver.save_screenshot(path)
    print(f"ok   hover analysis of c3 (entangled with a3, both previews); screenshot {path}")


def check_record_and_flip(board, downloads):
    moves = [m["move"] for m in board.state()["moves"]]
    board.button("download-record")
    record_path = os.path.join(downloads, "qchess-game.pgn")
    board.wait(lambda: os.path.exists(record_path) and os.path.getsize(record_path) > 0, "the record download")
    record = open(record_path, encoding="utf-8").read()
    assert all(m in record for m in moves), record
    board.button("download-circuit")
    qasm_path = os.path.join(downloads, "qchess-game.qasm")
    board.wait(lambda: os.path.exists(qasm_path) and os.path.getsize(qasm_path) > 0, "the circuit download")
    assert open(qasm_path, encoding="utf-8").read().startswith("OPENQASM 2.0;")
    board.button("download-sidecar")
    sidecar_path = os.path.join(downloads, "qchess-game.json")
    board.wait(lambda: os.path.exists(sidecar_path) and os.path.getsize(sidecar_path) > 0, "the sidecar download")
    sidecar = json.load(open(sidecar_path, encoding="utf-8"))
    assert "c3" in sidecar["squares"] and "a3" in sidecar["squares"], sidecar
    board.driver.find_element(By.CSS_SELECTOR, '[data-testid="load-record"]').send_keys(record_path)
    board.wait(lambda: board.state()["id"] != "" and len(board.state()["moves"]) == len(moves) and
               "Record loaded" in board.text("status"), "the record to load")
    board.idle()
    assert [m["move"] for m in board.state()["moves"]] == moves
    assert close(board.probability("c3"), 0.5)
    board.button("flip")
    first = board.driver.find_elements(By.CSS_SELECTOR, "#board [data-square]")[0].get_attribute("data-square")
    assert first == "h1", f"flipped: the first square drawn is {first}"
    board.button("flip")
    print("ok   record, circuit and sidecar download, the record loads back, the board flips")


def check_game_against_the_computer(board):
    # A rook and king against a king, with the fifty-move counter near its end: the game ends
    # within a few moves, by a captured king or by measuring every square.
    board.open("?white=human&black=ai:1&seed=4&fen=4k3/8/8/8/8/8/8/R3K3%20w%20-%20-%2090%201")
    # Undo takes back the computer's reply with the person's move.
    board.move("a1", "a2")
    board.wait(lambda: len(board.state()["moves"]) == 2, "the computer's reply")
    board.idle()
    board.button("undo")
    board.wait(lambda: len(board.state()["moves"]) == 0, "the undo of both moves")
    board.idle()
    assert board.state()["to_move_player"] == "human" and board.piece("a1") == "R"
    chooser = random.Random(4)
    for _ in range(40):
        board.wait(lambda: board.state()["over"] or board.state()["to_move_player"] == "human", "the computer")
        board.idle()
        state = board.state()
        if state["over"]:
            break
        legal = board.driver.execute_script("return window.qchess.legal")
        standard = [m for m in legal if m["kind"] == "standard"]
        king = [m for m in standard if state["squares"][m["squares"]["to"][0]]["piece"] == "k"]
        mv = king[0] if king else chooser.choice(standard)
        board.move(mv["squares"]["from"][0], mv["squares"]["to"][0])
    state = board.state()
    assert state["over"], "the game ended"
    banner = board.text("result")
    assert re.match(r"(1-0|0-1|1/2-1/2) · ", banner), banner
    assert state["black"] == "ai:1" and len(state["moves"]) >= 2
    print(f"ok   a game against the computer ends: {banner} after {len(state['moves'])} plies")


def check_promotion_keyboard_and_errors(board):
    board.open("?white=human&black=human&seed=1&fen=4k3/P7/8/8/8/8/8/4K3%20w%20-%20-%200%201")
    # Keyboard only: Enter on a focused square selects and moves.
    board.square("a7").send_keys(Keys.ENTER)
    board.square("a8").send_keys(Keys.ENTER)
    chooser = board.wait(lambda: board.driver.find_element(By.CSS_SELECTOR, '[data-testid="promotion"]').is_displayed()
                         and board.driver.find_element(By.CSS_SELECTOR, '[data-testid="promotion"]'), "the promotion chooser")
    pieces = sorted(b.get_attribute("data-testid") for b in chooser.find_elements(By.TAG_NAME, "button"))
    assert pieces == ["promote-b", "promote-n", "promote-q", "promote-r"], pieces
    chooser.find_element(By.CSS_SELECTOR, '[data-testid="promote-n"]').click()
    board.wait(lambda: board.state()["moves"], "the promotion")
    board.idle()
    assert board.piece("a8") == "N" and board.state()["last_move"]["move"] == "a7a8n"
    # An illegal typed move is refused with a message naming it; the game is unchanged.
    board.collect_console()
    before = board.state()["squares"]
    board.driver.find_element(By.CSS_SELECTOR, '[data-testid="move-input"]').send_keys("e8e6", Keys.ENTER)
    board.wait(lambda: "e8e6" in board.text("status"), "the error message")
    assert board.state()["squares"] == before
    board.collect_console()
    refused = [e for e in board.console if "status of 400" in e["message"] and "/moves" in e["message"]]
    assert len(refused) == 1, board.console
    board.console.remove(refused[0])
    print(f"ok   keyboard promotion with the chooser (a7a8n); a typed illegal move says: {board.text('status')}")


def check_move_list_from_black(board):
    # Black to move in the start position: the list opens with `1...`, then White's reply numbers 2.
    board.open("?white=human&black=human&seed=4&fen=4k3/8/8/8/8/8/4P3/4K3%20b%20-%20-%200%201")
    board.type_move("e8d7")
    board.type_move("e2e4")
    board.type_move("d7c6")
    assert board.move_rows() == [["1...", "e8d7"], ["2.", "e2e4", "d7c6"]], board.move_rows()
    print("ok   the move list pairs moves by number; a game with Black to move starts 1...")


def check_computer_against_computer(board):
    board.open("?white=greedy&black=random&seed=9&fen=4k3/8/8/8/8/8/8/R3K3%20w%20-%20-%2090%201")
    board.wait(lambda: board.state()["over"], "the computers to finish")
    board.idle()
    state = board.state()
    assert len(state["moves"]) >= 1 and board.text("result").startswith(state["result"])
    print(f"ok   computer against computer plays to the end: {board.text('result')}")


def check_coach(board, artifacts):
    # White's queen faces Black's undefended rook on the d-file (the coach searches 2 plies).
    board.open("?white=human&black=human&seed=2&coach-depth=2&fen=3r4/8/8/8/8/8/k7/3QK3%20w%20-%20-%200%201")
    bar = board.driver.find_element(By.CSS_SELECTOR, '[data-testid="eval-bar"]')
    board.wait(lambda: bar.get_attribute("data-ply") == "0", "the evaluation bar")
    assert float(bar.get_attribute("data-white-expected")) > 0.8, bar.get_attribute("data-white-expected")
    assert bar.get_attribute("data-best") == "d1xd8"
    assert "for White" in board.text("eval-label"), board.text("eval-label")
    hint = board.driver.find_element(By.CSS_SELECTOR, '[data-testid="hint-text"]')
    board.button("hint")
    board.wait(lambda: hint.get_attribute("data-state") == "hint", "the hint")
    assert hint.get_attribute("data-best") == "d1xd8" and hint.text.startswith("Hint: d1xd8"), hint.text
    assert "hint-from" in board.square("d1").get_attribute("class")
    assert "hint-to" in board.square("d8").get_attribute("class")
    assert "best line" not in hint.text
    board.button("best-line")
    board.wait(lambda: hint.get_attribute("data-state") == "line", "the best line")
    assert "best line: d1xd8" in hint.text and "best moves: d1xd8" in hint.text, hint.text
    # White steps the king aside and leaves the queen: the bar swings to Black, the hint goes.
    board.move("e1", "f2")
    board.wait(lambda: bar.get_attribute("data-ply") == "1", "the bar after e1f2")
    assert float(bar.get_attribute("data-white-expected")) < 0.2, bar.get_attribute("data-white-expected")
    assert bar.get_attribute("data-best") == "d8xd1"
    assert hint.text == "" and "hint-from" not in board.square("d1").get_attribute("class")
    board.type_move("d8xd1")
    board.type_move("f2e3")
    # The review steps through the marked moves, the blunder first, with the board before it.
    board.button("review")
    box = board.driver.find_element(By.CSS_SELECTOR, '[data-testid="review-box"]')
    board.wait(lambda: box.get_attribute("data-state") == "ready", "the review")
    marked = int(box.get_attribute("data-marked"))
    assert marked >= 1, marked
    step = board.driver.find_element(By.CSS_SELECTOR, '[data-testid="review-step"]')
    assert step.get_attribute("data-ply") == "1" and step.get_attribute("data-judgement") == "blunder", step.text
    assert "e1f2" in step.text and "best: d1xd8" in step.text, step.text
    summary = board.text("review-summary")
    assert "White: 0 inaccuracies, 0 mistakes, 1 blunder" in summary, summary
    mini = board.driver.find_element(By.CSS_SELECTOR, '[data-testid="review-board"]')
    assert mini.find_element(By.CSS_SELECTOR, '[data-square="e1"]').get_attribute("data-piece") == "K"
    assert "played" in mini.find_element(By.CSS_SELECTOR, '[data-square="f2"]').get_attribute("class")
    assert "best" in mini.find_element(By.CSS_SELECTOR, '[data-square="d8"]').get_attribute("class")
    first = board.driver.find_element(By.CSS_SELECTOR, '[data-testid="move-list"] .mv[data-ply="1"]')
    assert "reviewed" in first.get_attribute("class")
    assert board.driver.find_element(By.CSS_SELECTOR, '[data-testid="review-prev"]').get_attribute("disabled")
    if marked > 1:
        board.button("review-next")
        assert step.get_attribute("data-ply") != "1", step.text
        board.button("review-prev")
    assert step.get_attribute("data-ply") == "1"
    path = os.path.join(artifacts, "coach.png")
    board.driver.save_screenshot(path)
    print(f"ok   coach: the bar ({bar.get_attribute('data-white-expected')} for White after the blunder), "
          f"the hint and best line d1xd8, the review marks e1f2 a blunder ({marked} marked); screenshot {path}")


def check_remote_backend(board):
    board.open()
    labels = [o.text for o in board.driver.find_elements(By.CSS_SELECTOR, '[data-testid="backend"] option')]
    assert len(labels) == 2 and labels[1].startswith("http://127.0.0.1:"), labels
    Select(board.driver.find_element(By.CSS_SELECTOR, '[data-testid="backend"]')).select_by_value("remote")
    old_id = board.state()["id"]
    board.button("new-game")
    board.wait(lambda: board.state()["id"] != old_id, "the remote game")
    board.idle()
    assert board.state()["backend"] == labels[1], board.state()["backend"]
    board.move("g1", "+f3", "+h3")
    assert close(board.probability("f3"), 0.5) and close(board.probability("h3"), 0.5), "the ideal simulator is exact"
    assert "links not drawn" in board.text("turn"), board.text("turn")
    print(f"ok   a game on the remote provider ({labels[1]}): the split shows 50% on f3 and h3")


def check_waiting_move_cancel_and_your_games(board, artifacts):
    first = board.state()["id"]
    board.open("?backend=remote&white=human&black=human&seed=3")
    remote = board.state()["id"]
    assert remote != first
    # A move on the slow provider waits for its job, and says so: at first only that it waits
    # (the job is not reserved yet), then which job and where.
    board.click("b1")
    board.click("a3", shift=True)
    board.click("c3", shift=True)
    waiting = board.wait(lambda: board.driver.find_element(By.CSS_SELECTOR, '[data-testid="waiting"]').is_displayed()
                         and "for job " in board.text("waiting-text") and board.text("waiting-text"),
                         "the waiting move's job")
    assert waiting.startswith("b1^a3c3 waits") and "for job " in waiting and "on http://127.0.0.1:" in waiting, waiting
    board.driver.save_screenshot(os.path.join(artifacts, "waiting.png"))
    assert board.state()["moves"] == [] and board.state()["waiting"] is True
    board.wait(lambda: len(board.state()["moves"]) == 1, "the job to end")
    board.idle()
    assert not board.driver.find_element(By.CSS_SELECTOR, '[data-testid="waiting"]').is_displayed()
    assert close(board.probability("a3"), 0.5) and close(board.probability("c3"), 0.5)
    # A waiting move canceled: its job is canceled and the move taken back.
    box = board.driver.find_element(By.CSS_SELECTOR, '[data-testid="move-input"]')
    box.send_keys("g8^f6h6", Keys.ENTER)
    board.wait(lambda: board.driver.find_element(By.CSS_SELECTOR, '[data-testid="waiting"]').is_displayed(),
               "the second waiting move")
    board.button("cancel-waiting")
    board.wait(lambda: not board.state()["waiting"] and "Canceled the waiting g8^f6h6" in board.text("status"),
               "the cancel")
    board.idle()
    assert [m["move"] for m in board.state()["moves"]] == ["b1^a3c3"]
    assert board.piece("g8") == "n"
    # The visitor's games: every game of this browser, newest first; a click opens one again.
    items = board.wait(lambda: [li for li in board.driver.find_elements(By.CSS_SELECTOR, '[data-testid="your-games"] li')
                                if li.get_attribute("data-game-id") == first] and
                       board.driver.find_elements(By.CSS_SELECTOR, '[data-testid="your-games"] li'), "your games")
    listed = [li.get_attribute("data-game-id") for li in items]
    assert listed[0] == remote and first in listed, listed
    assert "current" in items[0].get_attribute("class")
    earlier = [li for li in items if li.get_attribute("data-game-id") == first][0]
    earlier.click()
    board.wait(lambda: board.state()["id"] == first, "the earlier game to open")
    board.idle()
    reopened = board.state()
    assert reopened["moves"] and not reopened["waiting"], reopened["moves"]
    print(f"ok   a move on the slow provider shows its waiting job ({waiting[:60]}...), a waiting move is canceled, "
          f"and {len(listed)} games of this visitor are listed and open again")


def main():
    qchess, artifacts = sys.argv[1], sys.argv[2]
    downloads = tempfile.mkdtemp(prefix="qchess-web-")
    board = Board(qchess, downloads)
    try:
        steps = [
            lambda: check_load(board),
            lambda: check_split_and_merge(board),
            lambda: check_capture_and_undo(board),
            lambda: check_analysis_and_screenshot(board, artifacts),
            lambda: check_record_and_flip(board, downloads),
            lambda: check_game_against_the_computer(board),
            lambda: check_promotion_keyboard_and_errors(board),
            lambda: check_move_list_from_black(board),
            lambda: check_computer_against_computer(board),
            lambda: check_coach(board, artifacts),
            lambda: check_remote_backend(board),
            lambda: check_waiting_move_cancel_and_your_games(board, artifacts),
        ]
        for step in steps:
            step()
            board.collect_console()
            assert not board.console, f"console errors: {board.console}"
        print("ok   no console errors")
    except Exception:
        try:
            board.driver.save_screenshot(os.path.join(artifacts, "failure.png"))
            board.collect_console()
            print(f"console: {board.console}", file=sys.stderr)
        finally:
            board.close()
        raise
    board.close()


if __name__ == "__main__":
    main()
