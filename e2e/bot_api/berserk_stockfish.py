"""Parlor's Bot API driven by real third-party parts: the `berserk` client (PyPI) and
Debian's `stockfish` through python-chess's UCI support.

1. A person on the WebSocket challenges the bot account to a rated blitz game (over
   HTTP, with the person's own token: the WebSocket has no challenge message yet); the
   bot accepts through berserk, plays Stockfish's moves from its game stream, and the
   person plays random legal moves until the game ends. The game is stored and rated.
2. The bot opens a room against Parlor's own `bot:hard` on the WebSocket and plays it
   to its end through berserk's game stream.

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


async def hello(name):
    """A WebSocket said hello as `name`, and the welcome."""
    ws = await websockets.connect(WS)
    await ws.send(json.dumps({"type": "hello", "name": name}))
    while True:
        message = json.loads(await ws.recv())
        if message["type"] == "welcome":
            return ws, message


def client(token):
    return berserk.Client(session=berserk.TokenSession(token), base_url=BASE)


def play_with_stockfish(bot, game_id, engine, outcome):
    """Plays game `game_id` for the bot from its game stream until its final state;
    puts the final state into `outcome`."""
    me = bot.account.get()["username"]
    colour = None
    for event in bot.bots.stream_game_state(game_id):
        if event["type"] == "gameFull":
            colour = chess.WHITE if event["white"]["name"] == me else chess.BLACK
            state = event["state"]
        elif event["type"] == "gameState":
            state = event
        else:
            continue
        if state["status"] != "started":
            outcome.update(state)
            return
        board = chess.Board()
        for uci in state["moves"].split():
            board.push_uci(uci)
        if board.turn == colour and not board.is_game_over():
            move = engine.play(board, chess.engine.Limit(time=0.05)).move
            bot.bots.make_move(game_id, move.uci())
    raise SystemExit(f"the game stream of {game_id} ended before the game did")


def accept_and_play(bot, engine, outcome, started):
    """Waits for a challenge on the bot's event stream, accepts it, and plays its game."""
    for event in bot.bots.stream_incoming_events():
        if event["type"] == "challenge":
            challenge = event["challenge"]
            say("challenge", challenge["id"], "from", challenge["challenger"]["name"])
            bot.bots.accept_challenge(challenge["id"])
        elif event["type"] == "gameStart":
            game_id = event["game"]["id"]
            started.set()
            play_with_stockfish(bot, game_id, engine, outcome)
            return


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
    bot_ws, bot_hello = await hello("Fishbot")
    bot = client(bot_hello["token"])
    bot.account.upgrade_to_bot()
    account = bot.account.get()
    assert account.get("title") == "BOT", account

    # 1. A person challenges the bot to a rated blitz game.
    person_ws, person_hello = await hello("Person")
    person = client(person_hello["token"])
    outcome, started = {}, threading.Event()
    playing = threading.Thread(target=accept_and_play, args=(bot, engine, outcome, started), daemon=True)
    playing.start()
    challenge = person.challenges.create("Fishbot", rated=True, clock_limit=180, clock_increment=2, color="white")
    room = challenge["id"]
    await asyncio.get_running_loop().run_in_executor(None, started.wait, 60)
    last = await person_plays(person_ws, room, 0)
    await asyncio.get_running_loop().run_in_executor(None, playing.join, 120)
    say("game 1:", last["result"], "after", last["moves"], "moves; the bot saw", outcome.get("status"))
    assert outcome.get("status") in ENDED, outcome
    stored = requests.get(f"{BASE}/api/games/{last['game_id']}", timeout=10).json()
    assert stored["status"] == "finished", stored
    assert len(stored["moves"]) == last["moves"], stored
    perfs = bot.account.get()["perfs"]
    assert perfs["blitz"]["games"] == 1, f"the rated game counts: {perfs['blitz']}"
    say("game 1 stored and rated; the bot's blitz rating is", perfs["blitz"]["rating"])

    # 2. The bot plays Parlor's own bot:hard, the room opened on its WebSocket.
    await bot_ws.send(json.dumps({"type": "create_room", "game": "chess", "seats": ["me", "bot:hard"]}))
    while True:
        message = json.loads(await bot_ws.recv())
        if message["type"] == "room_created":
            room = message["room"]
            break
        if message["type"] == "error":
            raise SystemExit(f"the room was refused: {message}")
    outcome = {}
    await asyncio.get_running_loop().run_in_executor(None, play_with_stockfish, bot, room, engine, outcome)
    say("game 2 against bot:hard:", outcome.get("status"), "winner", outcome.get("winner"))
    assert outcome.get("status") in ENDED, outcome
    engine.quit()
    say("both games played to their end")


asyncio.run(main())
