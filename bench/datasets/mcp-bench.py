#!/usr/bin/env python3
"""Builds bench/data/mcp-bench.json from a checkout of Accenture/mcp-bench (Apache-2.0).

Usage: mcp-bench.py CHECKOUT COMMIT > bench/data/mcp-bench.json

- Tools: each of the benchmark's 28 servers (mcp_servers/commands.json) read from its source
  at that commit: python_tools.py for the Python ones, ts-tools.mjs for the Node ones.
- Tasks: the 104 tasks of tasks/*.json. The query is the task's `fuzzy_description` (the
  request as a user would write it, without tool names); the relevant tools are those of
  the task's servers that its precise `task_description` or `dependency_analysis` names.
- Split: by a hash of the task id, half `dev` (look at it while tuning) and half `held_out`
  (look only at the end). The split does not depend on anything that tuning could change.
"""
import hashlib
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# Where each server's code starts (commands.json says how it is run).
PYTHON_ENTRIES = {
    'Unit Converter': ('unit-converter-mcp', ['src/unit_converter_mcp/server.py']),
    'Wikipedia': ('wikipedia-mcp', ['wikipedia_mcp/__main__.py']),
    'Bibliomantic': ('bibliomantic-mcp-server', ['bibliomantic_server.py']),
    'BioMCP': ('biomcp', ['src/biomcp/__main__.py']),
    'Call for Papers': ('call-for-papers-mcp/call-for-papers-mcp-main', ['server.py']),
    'Car Price Evaluator': ('car-price-mcp-main', ['server.py']),
    'FruityVice': ('fruityvice-mcp', ['server.py']),
    'Game Trends': ('game-trends-mcp', ['server.py']),
    'Hugging Face': ('huggingface-mcp-server', ['src/huggingface/server.py']),
    'NixOS': ('mcp-nixos', ['mcp_nixos/server.py']),
    'OSINT Intelligence': ('mcp-osint-server', ['mcp_osint_server/mcp_osint_server/main.py']),
    'Reddit': ('mcp-reddit', ['src/mcp_reddit/reddit_fetcher.py']),
    'Medical Calculator': ('medcalc', ['medcalc/__main__.py']),
    'Movie Recommender': ('movie-recommender-mcp/movie-reccomender-mcp', ['server.py']),
    'NASA Data': ('nasa-mcp', ['main.py']),
    'Paper Search': ('paper-search-mcp', ['paper_search_mcp/server.py']),
    'Scientific Computing': ('scientific_computation_mcp', ['src/server.py']),
    'Weather Data': ('weather_mcp', ['server.py']),
    'Time MCP': ('time-mcp', ['src/mcp_server_time/__main__.py']),
}
NODE_DIRS = {
    'OpenAPI Explorer': 'openapi-mcp-server',
    'Google Maps': 'mcp-google-map',
    'Context7': 'context7-mcp',
    'DEX Paprika': 'dexpaprika-mcp',
    'Huge Icons': 'hugeicons-mcp-server',
    'Math MCP': 'math-mcp',
    'National Parks': 'mcp-server-nationalparks',
    'Metropolitan Museum': 'metmuseum-mcp',
    'OKX Exchange': 'okx-mcp',
}


def slug(server):
    """The name a server gets behind mcpmux: lower case, words joined by '-'."""
    return re.sub(r'[^a-z0-9]+', '-', server.lower()).strip('-')


def tools_of(checkout, server):
    servers = os.path.join(checkout, 'mcp_servers')
    if server in PYTHON_ENTRIES:
        d, entries = PYTHON_ENTRIES[server]
        cmd = [sys.executable, os.path.join(HERE, 'python_tools.py'), os.path.join(servers, d), *entries]
    else:
        cmd = ['node', os.path.join(HERE, 'ts-tools.mjs'), os.path.join(servers, NODE_DIRS[server])]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def names_tool(text, server, tool):
    """Whether the precise text names the tool: as "Server:tool" or "tool(", or bare when the name is
    plainly an identifier (get_alerts, findParks, get-info), not an English word (add, round, search)."""
    name = re.escape(tool)
    if re.search(re.escape(server) + r'\s*:\s*' + name + r'(?![\w-])', text):
        return True
    if re.search(r'(?<![\w-])' + name + r'\s*\(', text):
        return True
    identifier = re.search(r'[_\-]|[a-z][A-Z]', tool) is not None
    return identifier and re.search(r'(?<![\w-])' + name + r'(?![\w-])', text) is not None


def split_of(task_id):
    return 'dev' if hashlib.sha256(task_id.encode()).digest()[0] % 2 == 0 else 'held_out'


def main():
    checkout, commit = sys.argv[1], sys.argv[2]
    names = json.load(open(os.path.join(checkout, 'mcp_servers/commands.json')))
    catalog = [{'server': slug(s), 'title': s, 'tools': tools_of(checkout, s)} for s in names]
    by_title = {c['title']: c for c in catalog}
    tasks, unlabelled = [], 0
    for f in sorted(os.listdir(os.path.join(checkout, 'tasks'))):
        for group in json.load(open(os.path.join(checkout, 'tasks', f)))['server_tasks']:
            servers = [by_title[s.strip()] for s in group['server_name'].split('+')]
            for task in group['tasks']:
                precise = task['task_description'] + '\n' + str(task.get('dependency_analysis', ''))
                relevant = []
                for c in servers:
                    for t in c['tools']:
                        if names_tool(precise, c['title'], t['name']):
                            relevant.append(f"{c['server']}__{t['name']}")
                if not relevant:
                    unlabelled += 1
                    continue
                tasks.append({'id': task['task_id'], 'query': task['fuzzy_description'].strip(),
                              'servers': [c['server'] for c in servers], 'relevant': sorted(set(relevant)),
                              'split': split_of(task['task_id'])})
    json.dump({
        'source': {'name': 'MCP-Bench', 'repository': 'https://github.com/Accenture/mcp-bench', 'commit': commit,
                   'license': 'Apache-2.0',
                   'built_by': 'bench/datasets/mcp-bench.py (tools read from each server\'s source at that commit)',
                   'tasks_without_a_named_tool': unlabelled},
        'servers': catalog,
        'tasks': tasks,
    }, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
