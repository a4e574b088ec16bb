#!/usr/bin/env python3
"""Builds bench/data/msc-bench.json from a checkout of snooow1029/ETOM (MSC-Bench, MIT).

Usage: msc-bench.py CHECKOUT COMMIT > bench/data/msc-bench.json

- Tools: every tool of data/mcp_registry.json (491 servers, 2,375 tools as glama.ai lists
  them: name, description, input schema). A server's name behind mcpmux is its registry name
  in lower case, words joined by '-', without the words "mcp" and "server" that most carry
  ("Twelve Data MCP Server" -> "twelve-data"), as a person naming it in a config would (a
  name that comes twice gets "-2").
- Tasks: level 4 (data/queries/level_4.json), "multi-server tool sequences": 103 requests in
  a user's words (median 88 words), each a sequence of steps. A step lists the tools that
  would each do it (the benchmark's equivalence sets), so a step is found when any of them is.
  Level 3 (data/queries/level_3.json, "tool sets of one server": 327 shorter requests of two
  to seven tools) is kept as a second set; its steps have one tool each.
- Split: by a hash of the level and query id, half `dev` (look at it while tuning) and half
  `held_out` (look only at the end). The split depends on nothing tuning could change.
"""
import hashlib
import json
import os
import re
import subprocess
import sys

GENERIC = {'mcp', 'server'}


def slug(server):
    words = [w for w in re.split(r'[^a-z0-9]+', server.lower()) if w and w not in GENERIC]
    return '-'.join(words) or re.sub(r'[^a-z0-9]+', '-', server.lower()).strip('-')


def split_of(key):
    return 'dev' if hashlib.sha256(key.encode()).digest()[0] % 2 == 0 else 'held_out'


def show(checkout, commit, path):
    return json.loads(subprocess.run(['git', '-C', checkout, 'show', f'{commit}:{path}'],
                                     check=True, capture_output=True).stdout)


def main():
    checkout, commit = sys.argv[1], sys.argv[2]
    registry = show(checkout, commit, 'data/mcp_registry.json')
    names = {}
    servers = []
    for entry in registry['servers']:
        name = slug(entry['server_name'])
        # Seven names come twice ("Postman MCP Server", "postman-mcp-server"): as in a config, the second gets a number.
        taken = set(names.values())
        base, n = name, 2
        while name in taken:
            name, n = f'{base}-{n}', n + 1
        names[entry['server_name']] = name
        tools = []
        for tool in entry['tools']:
            schema = dict(tool.get('input_schema') or {'type': 'object'})
            schema.pop('$schema', None)
            tools.append({'name': tool['tool_name'], 'description': tool.get('tool_description') or '',
                          'inputSchema': schema})
        servers.append({'server': name, 'title': entry['server_name'], 'tools': tools})

    def exposed(alt):
        return f"{names[alt['server_name']]}__{alt['tool_name']}"

    sets = {}
    for level, key in ((4, 'multi_server'), (3, 'one_server')):
        tasks = []
        for item in show(checkout, commit, f'data/queries/level_{level}.json'):
            truth = item['ground_truth_tools']
            steps = truth if level == 4 else [[alt] for alt in truth]
            steps = [sorted({exposed(alt) for alt in step}) for step in steps if step]
            if not steps:
                continue
            tasks.append({'id': f"level{level}-{item['query_id']}", 'query': item['query'], 'steps': steps,
                          'split': split_of(f"level{level}-{item['query_id']}")})
        sets[key] = tasks

    json.dump({
        'source': {'name': 'MSC-Bench', 'repository': 'https://github.com/snooow1029/ETOM', 'commit': commit,
                   'license': 'MIT', 'paper': 'https://arxiv.org/abs/2510.19423',
                   'built_by': 'bench/datasets/msc-bench.py'},
        'servers': servers,
        'tasks': sets,
    }, sys.stdout, ensure_ascii=False, separators=(',', ':'))
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
