"""Parlor's Bot API driven by real third-party parts: the `berserk` client (PyPI) and
Debian's `stockfish` through python-chess's UCI support.

1. A person on the WebSocket challenges the bot account to a rated blitz game with the
   `challenge` message (PROTOCOL.md §6.20); the bot accepts through berserk, plays
   Stockfish's moves from its game stream, and the person, told `challenge_accepted`,
   joins the room and plays random legal moves until the game ends. The game is stored
   and rated.
2. The bot challenges Parlor's own `bot:hard` with berserk's `create_ai` (Lichess's
   "challenge the AI") and plays it to its end through its game stream; over the
   WebSocket the bot account is refused a seat (`bot_account`).
3. The bot says it takes checkers too; the person challenges it to checkers, and the
   bot, through berserk alone (its event stream, accept, game stream, moves in the
   game's notation), plays the game to its end, picking among the legal moves the
   room's public state lists (python-chess knows no checkers).

Usage: python3 berserk_stockfish.py http://127.0.0.1:PORT [path/to/stockfish]
Exits non-zero, saying why, on anything unexpected.
"""

import asyncio
import json
import random
import sys
import threading

import berserk
import chess
import chess.engine
import requests
import websockets

BASE = sys.argv[1].rstrip("/")
STOCKFISH = sys.argv[2] if len(sys.argv) > 2 else "/usr/games/stockfish"
WS = BASE.replace("http", "ws", 1) + "/ws"
ENDED = {"mate", "resign", "stalemate", "outoftime", "timeout", "draw", "aborted", "variantEnd"}


def say(*parts):
    print("bot-api:", *parts, flush=True)


async def hello(name, token=None):
    """A WebSocket said hello as `name` (with the player's `token`, if any), and the
    welcome."""
    ws = await websockets.connect(WS)
    await ws.send(json.dumps({"type": "hello", "name": name, "token": token}))
    while True:
        message = json.loads(await ws.recv())
        if message["type"] == "welcome":
            return ws, message


def client(token):
    return berserk.Client(session=berserk.TokenSession(token), base_url=BASE)


def play_game(bot, game_id, outcome, choose):
    """Plays game `game_id` for the bot from its game stream until its final state, each
    of its moves `choose(game_id, moves)` for the moves played so far; puts the final
    state into `outcome`. White (seat 0) moves first."""
    me = bot.account.get()["username"]
    seat = None
    for event in bot.bots.stream_game_state(game_id):
        if event["type"] == "gameFull":
            seat = 0 if event["white"]["name"] == me else 1
            state = event["state"]
            say("game", game_id, "variant", event["variant"]["key"], "from", event["initialFen"])
        elif event["type"] == "gameState":
            state = event
        else:
            continue
        if state["status"] != "started":
            outcome.update(state)
            return
        moves = state["moves"].split()
        if len(moves) % 2 == seat:
            bot.bots.make_move(game_id, choose(game_id, moves))
    raise SystemExit(f"the game stream of {game_id} ended before the game did")


def stockfish_move(engine):
    """A chooser of Stockfish's move in a chess game from the start."""
    def choose(_game_id, moves):
        board = chess.Board()
        for uci in moves:
            board.push_uci(uci)
        return engine.play(board, chess.engine.Limit(time=0.05)).move.uci()
    return choose


def listed_move(game_id, _moves):
    """One of the legal moves the room's public state lists (any game)."""
    room = requests.get(f"{BASE}/api/rooms/{game_id}", timeout=10).json()
    return random.choice(room["legal_moves"])


def accept_and_play(bot, choose, outcome):
    """Waits for a challenge on the bot's event stream, accepts it, and plays its game
    with play_game, its moves chosen by `choose`."""
    for event in bot.bots.stream_incoming_events():
        if event["type"] == "challenge":
            challenge = event["challenge"]
            say("challenge", challenge["id"], "from", challenge["challenger"]["name"],
                "to", challenge["variant"]["key"])
            bot.bots.accept_challenge(challenge["id"])
        elif event["type"] == "gameStart":
            play_game(bot, event["game"]["id"], outcome, choose)
            return


async def challenge(ws, message):
    """Sends the person's `challenge`; once the bot accepts, the room and the seat."""
    await ws.send(json.dumps({"type": "challenge", **message}))
    while True:
        answer = json.loads(await ws.recv())
        if answer["type"] in ("error", "challenge_declined"):
            raise SystemExit(f"the challenge was refused: {answer}")
        if answer["type"] == "challenge_accepted":
            return answer["room"], answer["seat"]


async def person_plays(ws, room, seat):
    """Plays `seat` of `room` with random legal moves until the game ends; the final
    state."""
    await ws.send(json.dumps({"type": "join", "room": room, "seat": seat}))
    while True:
        message = json.loads(await ws.recv())
        if message["type"] == "error":
            raise SystemExit(f"the person was refused: {message}")
        if message["type"] != "state":
            continue
        if message["status"] == "finished":
            return message
        if message["status"] == "playing" and message["to_move"] == seat:
            move = random.choice(message["legal_moves"])
            await ws.send(json.dumps({"type": "move", "room": room, "move": move, "after": message["moves"]}))


async def main():
    engine = chess.engine.SimpleEngine.popen_uci(STOCKFISH)
    _, bot_hello = await hello("Fishbot")
    bot = client(bot_hello["token"])
    bot.account.upgrade_to_bot()
    account = bot.account.get()
    assert account.get("title") == "BOT", account

    # 1. A person challenges the bot to a rated blitz game.
    person_ws, _ = await hello("Person")
    outcome = {}
    playing = threading.Thread(target=accept_and_play, args=(bot, stockfish_move(engine), outcome), daemon=True)
    playing.start()
    blitz = {"kind": "fischer", "base_ms": 180_000, "increment_ms": 2000}
    room, seat = await challenge(person_ws, {"name": "Fishbot", "game": "chess", "seat": 0,
                                             "time_control": blitz, "rated": True})
    last = await person_plays(person_ws, room, seat)
    await asyncio.get_running_loop().run_in_executor(None, playing.join, 120)
    say("game 1:", last["result"], "after", last["moves"], "moves; the bot saw", outcome.get("status"))
    assert outcome.get("status") in ENDED, outcome
    stored = requests.get(f"{BASE}/api/games/{last['game_id']}", timeout=10).json()
    assert stored["status"] == "finished", stored
    assert len(stored["moves"]) == last["moves"], stored
    perfs = bot.account.get()["perfs"]
    assert perfs["blitz"]["games"] == 1, f"the rated game counts: {perfs['blitz']}"
    say("game 1 stored and rated; the bot's blitz rating is", perfs["blitz"]["rating"])

    # 2. The bot plays Parlor's own bot:hard through the Bot API; as a person it may not.
    bot_ws, _ = await hello("Fishbot", bot_hello["token"])
    await bot_ws.send(json.dumps({"type": "create_room", "game": "chess", "seats": ["me", "bot:hard"]}))
    refused = json.loads(await bot_ws.recv())
    assert refused["type"] == "error" and refused["code"] == "bot_account", refused
    await bot_ws.close()
    game = bot.challenges.create_ai(level=8, clock_limit=180, clock_increment=2, color="white")
    assert game["source"] == "ai" and game["player"] == "white" and not game["rated"], game
    outcome = {}
    await asyncio.get_running_loop().run_in_executor(None, play_game, bot, game["id"], outcome, stockfish_move(engine))
    say("game 2 against bot:hard:", outcome.get("status"), "winner", outcome.get("winner"))
    assert outcome.get("status") in ENDED, outcome
    engine.quit()

    # 3. Checkers, through the same endpoints in that game's notation.
    taken = requests.post(f"{BASE}/api/bot/account/games", data={"games": "chess,checkers"},
                          headers={"Authorization": f"Bearer {bot_hello['token']}"}, timeout=10)
    assert taken.status_code == 200, taken.text
    outcome = {}
    playing = threading.Thread(target=accept_and_play, args=(bot, listed_move, outcome), daemon=True)
    playing.start()
    room, seat = await challenge(person_ws, {"name": "Fishbot", "game": "checkers", "rated": True})
    last = await person_plays(person_ws, room, seat)
    await asyncio.get_running_loop().run_in_executor(None, playing.join, 120)
    say("game 3 (checkers):", last["result"], "after", last["moves"], "moves; the bot saw", outcome.get("status"))
    assert outcome.get("status") in ENDED, outcome
    stored = requests.get(f"{BASE}/api/games/{last['game_id']}", timeout=10).json()
    assert stored["game"] == "checkers" and stored["status"] == "finished", stored
    assert len(stored["moves"]) == last["moves"], stored
    assert bot.account.get()["perfs"]["checkers"]["games"] == 1, bot.account.get()["perfs"]
    pdn = requests.get(f"{BASE}/game/export/{room}", timeout=10)
    assert pdn.status_code == 200 and stored["moves"][0]["notation"] in pdn.text, pdn.text
    say("all three games played to their end; the checkers game stored, rated and exported")


asyncio.run(main())
