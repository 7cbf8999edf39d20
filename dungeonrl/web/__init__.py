"""The web app: play any game against agents in a browser, watch agents
play each other, scrub and share replays.

Description
    ``dungeonrl serve`` starts a local web app (Starlette on uvicorn, bound
    to 127.0.0.1 unless ``--host`` says otherwise) and prints its address.
    The lobby starts a game of any title at any seat count; each seat is
    you or an agent the server offers (the heuristic, random, the shipped
    reference agents of that game and seat count, and any ``--agent`` given
    to ``serve``). A table shows the picture of the board (the same
    picture as ``render_mode="rgb_array"``), the legal actions as buttons
    labelled in words, what happened since your last decision and your own
    hidden information; a game of agents only can be played, paused,
    stepped and sped up, from the public view, any seat's or every seat's.
    A finished game is saved as a replay file (:mod:`dungeonrl.agents.replay`),
    opened in the viewer (a timeline to scrub forwards and backwards, a
    seat's view or every seat's) and exported as one HTML file that plays
    offline.

Arguments
    ``dungeonrl serve --help``: ``--host``, ``--port``, ``--agent`` (repeat),
    ``--replay-dir``, ``--max-games``, ``--max-connections``,
    ``--idle-minutes``.

What a page is sent
    :func:`.session.seat_view` decides it, for every message: pictures and
    table text show public information only; a seat's hidden information
    and its legal actions go to that seat's page alone (joined with the
    key handed out when the game was created). Replays of games still being
    played are refused (a replay holds the seed, so every hidden card).

Who may do what
    A game belongs to the page that created it: creation hands out the
    game's token (ending it, and the pace of a game of agents) and one key
    per person's seat (acting for it); watchers only read. Every action
    names the game and the decision it was chosen at, and one for any
    other is refused with nothing played. Seeds travel as strings of
    digits, in the command line's ``--seed`` range.

Limits
    Games, open pages and replays held are bounded; a game untouched for
    ``--idle-minutes`` is closed; page messages are at most 4 KB of JSON;
    every refused request gets a message that says why and changes
    nothing.

Modules
    :mod:`.session` (games and views, no web code), :mod:`.server` (games,
    pages, limits), :mod:`.app` (routes), :mod:`.export` (the offline
    HTML replay), :mod:`.cli` (``dungeonrl serve``).

Version history
    * 0.1: first version: play, watch, replays, export.
    * 0.2: game tokens (ending, pace), actions carry game and decision,
      seeds as strings in ``--seed``'s range, HTTP statuses by kind,
      ``--agent`` resolved at start.
"""
