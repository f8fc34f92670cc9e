"""The Python half of `npm run bench:clients` (scripts/bench-clients.ts runs it): 10,000 followers
(400 pages) through the Python client, and through a bare urllib loop over the same pages, in
alternating order, timed inside this process. Prints one JSON line: each round's walks, their
wall seconds and this process's CPU milliseconds."""

import json
import os
import sys
import time
import urllib.parse
import urllib.request

from social_lookup import SocialLookup

BASE_URL = os.environ["SOCIAL_LOOKUP_BASE_URL"]
KEY = os.environ["SOCIAL_LOOKUP_API_KEY"]
ROUNDS = int(sys.argv[1])
USERID = "2000000001"
EXPECTED = 10_000


def with_client() -> int:
    client = SocialLookup(api_key=KEY, base_url=BASE_URL)
    return sum(1 for _ in client.followers.iterate(userid=USERID))


def bare_urllib() -> int:
    query = {"userid": USERID}
    count = 0
    while True:
        request = urllib.request.Request(f"{BASE_URL}/v1/pinsite/followers?{urllib.parse.urlencode(query)}", headers={"Authorization": f"Bearer {KEY}"})
        with urllib.request.urlopen(request, timeout=30) as response:
            data = json.loads(response.read())["data"]
        count += len(data["followers"])
        if not data["page_info"]["has_next_page"]:
            return count
        query = {"node_id": data["node_id"], "cursor": data["page_info"]["end_cursor"]}


def timed(walk) -> dict:
    cpu = time.process_time()
    started = time.perf_counter()
    count = walk()
    wall = time.perf_counter() - started
    if count != EXPECTED:
        raise SystemExit(f"{walk.__name__} saw {count} followers, not {EXPECTED}")
    return {"wallS": wall, "cpuMs": (time.process_time() - cpu) * 1000}


timed(with_client)
timed(bare_urllib)
rounds = []
for index in range(ROUNDS):
    order = [("client", with_client), ("bare", bare_urllib)]
    if index % 2 == 1:
        order.reverse()
    rounds.append({name: timed(walk) for name, walk in order})
print(json.dumps(rounds))
