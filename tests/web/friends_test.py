"""Playing a friend: three headless Chromium sessions on one real `qchess serve`.

Alice makes a game with clocks and keeps White; Bob opens Black's seat link (the token leaves
his address bar, and the link is spent); Carol opens the spectator link. They play a whole game:
every board shows every move within a second of the mover's board. A draw offer is declined
and a takeback asked and accepted across browsers. The spectator's and the wrong seat's moves
are refused 403 in the page and on the API, and change nothing. Fair play: while the game runs
the coach's buttons are disabled on all three boards, with the reason shown, and the board asks
the coach nothing; they open on all three when it ends. The browser consoles stay free of errors
but for those refusals.

Usage: friends_test.py QCHESS_BINARY ARTIFACT_DIR
"""

import json
import os
import random
import re
import sys
import tempfile
import time
import urllib.error
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from board_test import Board, chromium, serve

# Every board shows every move within this many seconds of the mover's.
SHOWN_WITHIN = 1.0


class Player(Board):
    """One person's browser on the shared server."""

    def __init__(self, name, url, downloads):
        self.name = name
        self.url = url
        self.driver = chromium(downloads)
        self.console = []

    def close(self):
        self.driver.quit()

    def plies(self):
        game = self.state()
        return len(game["moves"]) if game else -1

    def seats(self):
        return json.loads(self.driver.execute_script("return localStorage.getItem('qchess-seats')") or "{}")

    def typed(self, text):
        box = self.driver.find_element(By.CSS_SELECTOR, '[data-testid="move-input"]')
        box.send_keys(text, Keys.ENTER)


def post(url, path, body, token):
    """POSTs JSON with a seat token; returns (status, answer)."""
    request = urllib.request.Request(f"{url}{path}", data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def refusals(player):
    """The console's refused requests (403), taken off its list."""
    player.collect_console()
    refused = [e for e in player.console if "status of 403" in e["message"]]
    player.console = [e for e in player.console if e not in refused]
    return refused


def coach_buttons(player):
    """Whether the coach's buttons are disabled, and the coach's rule as the board shows it."""
    return player.driver.execute_script(
        "return [['hint', 'best-line', 'review'].map((id) => document.getElementById(id).disabled),"
        " document.getElementById('coach-rule').textContent, document.getElementById('hint').title]")


def main():
    qchess, artifacts = sys.argv[1], sys.argv[2]
    downloads = tempfile.mkdtemp(prefix="qchess-friends-")
    server, url = serve(qchess, ["--db", os.path.join(downloads, "games.db")])
    players = []
    try:
        alice = Player("Alice", url, downloads)
        players.append(alice)
        # A rook and king against a king, the fifty-move counter near its end: a whole game in a
        # few moves, ended by a captured king or by measuring every square.
        alice.open("?seats=white&clock=10%2B5&white=human&black=human&seed=7"
                   "&fen=4k3/8/8/8/8/8/8/R3K3%20w%20-%20-%2090%201")
        game = alice.state()
        assert game["seated"] and game["clock"]["control"] == "10+5", game
        links = alice.wait(lambda: alice.driver.find_elements(By.CSS_SELECTOR, '[data-testid="share-black"]'),
                           "Black's link to share")
        black_link = links[0].get_attribute("value")
        spectator_link = alice.driver.find_element(By.CSS_SELECTOR, '[data-testid="share-spectator"]') \
            .get_attribute("value")
        assert re.search(r"\?game=[0-9a-f-]+#seat=qcs_[0-9a-f]{64}$", black_link), black_link
        assert "#watch=qcs_" in spectator_link, spectator_link
        assert "seat=" not in alice.driver.current_url and "qcs_" not in alice.driver.current_url
        assert alice.text("seat") == "You play white.", alice.text("seat")
        link_token = black_link.split("#seat=")[1]
        spectator_token = spectator_link.split("#watch=")[1]

        bob = Player("Bob", url, downloads)
        players.append(bob)
        bob.driver.get(black_link)
        bob.wait(lambda: bob.text("seat") == "You play black.", "Bob's seat")
        bob.idle()
        assert "qcs_" not in bob.driver.current_url, f"the token left the address bar: {bob.driver.current_url}"
        bob_token = bob.seats()[game["id"]]["black"]
        assert bob_token != link_token, "opening the link claimed a new token"
        carol = Player("Carol", url, downloads)
        players.append(carol)
        carol.driver.get(spectator_link)
        carol.wait(lambda: carol.state() and carol.state()["id"] == game["id"], "Carol's board")
        carol.idle()
        assert carol.text("seat") == "You watch.", carol.text("seat")
        alice.wait(lambda: "online" in alice.text("presence-black"), "Bob shown online on Alice's board")
        for player in players:
            player.wait(lambda p=player: p.driver.find_element(By.CSS_SELECTOR, '[data-testid="clocks"]').is_displayed(),
                        f"the clocks on {player.name}'s board")
        print(f"ok   Alice made the game; Bob took Black's link (spent, out of his address bar); Carol watches")
        for player in players:
            disabled, rule, reason = coach_buttons(player)
            assert disabled == [True, True, True], (player.name, disabled)
            assert rule.startswith("Fair play: the coach helps nobody"), (player.name, rule)
            assert "fair play" in reason and "when the game ends" in reason, (player.name, reason)
            assert "fair play" in player.text("eval-label"), (player.name, player.text("eval-label"))
        print(f"ok   fair play: the coach's buttons are disabled on the three boards: {reason}")

        # Refused in the page: the spectator, and Black on White's turn.
        for player, says in [(carol, "spectators"), (bob, "only white's seat plays for white")]:
            player.typed("a1a2")
            player.wait(lambda p=player: says in p.text("status"), f"{player.name}'s refusal")
            assert len(refusals(player)) == 1, player.console
        # Refused on the API: the spectator's token, Black's for White, the spent link's.
        for token, who in [(spectator_token, "spectator"), (bob_token, "black"), (link_token, "the spent link")]:
            status, answer = post(url, f"/api/games/{game['id']}/moves", {"move": "a1a2"}, token)
            assert status == 403, (who, status, answer)
            assert token not in json.dumps(answer), "the token is echoed"
        assert all(p.plies() == 0 for p in players), "nothing changed"
        print("ok   the spectator's and the wrong seat's moves are refused 403 in the page and on the API")

        # A draw offered by Alice and declined by Bob; a takeback asked by Bob, accepted by Alice.
        alice.button("offer-draw")
        bob.wait(lambda: bob.driver.find_elements(By.CSS_SELECTOR, '[data-testid="decline-draw"]'), "the offer")
        carol.wait(lambda: "offers a draw" in carol.text("offers"), "the offer on Carol's board")
        bob.button("decline-draw")
        for player in players:
            player.wait(lambda p=player: p.state()["offers"] == [], f"the offer gone on {player.name}'s board")
        alice.move("a1", "a2")
        bob.wait(lambda: bob.plies() == 1 and bob.state()["to_move"] == "black", "Alice's move on Bob's board")
        bob.idle()
        bob.move("e8", "d8")
        alice.wait(lambda: alice.plies() == 2, "Bob's move on Alice's board")
        bob.button("undo")
        alice.wait(lambda: alice.driver.find_elements(By.CSS_SELECTOR, '[data-testid="accept-takeback"]'),
                   "Bob's takeback request")
        alice.button("accept-takeback")
        for player in players:
            player.wait(lambda p=player: p.plies() == 1, f"the takeback on {player.name}'s board")
            player.idle()
        print("ok   a draw offer declined and a takeback asked and accepted across browsers")

        # The game to its end: each move shown on every board within a second.
        chooser = random.Random(7)
        latencies = []
        for _ in range(30):
            state = alice.state()
            if state["over"]:
                break
            mover = alice if state["to_move"] == "white" else bob
            mover.wait(lambda: mover.state()["to_move"] == state["to_move"] and mover.driver.execute_script(
                "return window.qchess.legal.length") > 0, f"{mover.name}'s legal moves")
            legal = mover.driver.execute_script("return window.qchess.legal")
            standard = [m for m in legal if m["kind"] == "standard"]
            king = [m for m in standard if state["squares"][m["squares"]["to"][0]]["piece"] == "k"]
            mv = king[0] if king else chooser.choice(standard)
            before = mover.plies()
            mover.move(mv["squares"]["from"][0], mv["squares"]["to"][0])
            shown = time.monotonic()
            for other in players:
                if other is mover:
                    continue
                other.wait(lambda o=other: o.plies() == before + 1, f"the move on {other.name}'s board")
                latencies.append(time.monotonic() - shown)
            for other in players:
                other.idle()
        results = [p.wait(lambda p=p: p.state()["over"] and p.text("result"), f"{p.name}'s result") for p in players]
        assert len(set(results)) == 1 and re.match(r"(1-0|0-1|1/2-1/2) · ", results[0]), results
        worst = max(latencies)
        assert worst < SHOWN_WITHIN, f"a move took {worst:.3f} s to show on another board"
        plies = alice.plies()
        assert bob.plies() == plies == carol.plies()
        assert [m["move"] for m in bob.state()["moves"]] == [m["move"] for m in carol.state()["moves"]]
        for player in players:
            player.wait(lambda p=player: coach_buttons(p)[0] == [False, False, False], f"{player.name}'s coach open")
            assert coach_buttons(player)[1] == "", coach_buttons(player)
        carol.driver.save_screenshot(os.path.join(artifacts, "friends-spectator.png"))
        print(f"ok   a whole game of {plies} plies ({results[0]}): every move on the other two boards within "
              f"{worst * 1000:.0f} ms (median {sorted(latencies)[len(latencies) // 2] * 1000:.0f} ms)")
        for player in players:
            player.collect_console()
            assert not player.console, f"{player.name}'s console: {player.console}"
        print("ok   the coach opens on the three boards once the game is over; no console errors but the refusals")
    except Exception:
        for player in players:
            try:
                player.driver.save_screenshot(os.path.join(artifacts, f"friends-failure-{player.name}.png"))
                player.collect_console()
                print(f"{player.name}'s console: {player.console}", file=sys.stderr)
            except Exception:
                pass
        raise
    finally:
        for player in players:
            player.close()
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
