#!/usr/bin/env python3
"""Tool definitions of a Python MCP server, read from its source without running it.

Usage: python_tools.py SERVER_DIR ENTRY [ENTRY...]  ->  JSON list of tools on stdout.

An ENTRY is a module file (relative to SERVER_DIR); the modules it imports from the server's
own tree are followed. What FastMCP would list is rebuilt: a function decorated with
`@x.tool(...)` (or passed to `x.tool(...)(fn)` / `x.add_tool(fn, ...)`) is a tool named by its
`name=` or the function, described by its `description=` or its docstring (cleaned as
inspect.cleandoc does), with one parameter per argument (Annotated/Field descriptions kept).
Low-level servers' `Tool(name=..., description=..., inputSchema={...})` literals are read too.
"""
import ast
import inspect
import json
import os
import sys

JSON_TYPES = {'str': 'string', 'int': 'integer', 'float': 'number', 'bool': 'boolean',
              'list': 'array', 'List': 'array', 'dict': 'object', 'Dict': 'object'}


def module_files(root, entries):
    """The entry modules and every module of the server's own tree they import, transitively."""
    roots = [root, os.path.join(root, 'src')]
    seen, todo = [], [os.path.join(root, e) for e in entries]
    while todo:
        path = os.path.normpath(todo.pop())
        if path in seen or not os.path.isfile(path):
            continue
        seen.append(path)
        try:
            tree = ast.parse(open(path, encoding='utf-8').read())
        except SyntaxError:
            continue
        here = os.path.dirname(path)
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [(0, a.name) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ''
                names = [(node.level, base)] + [(node.level, f'{base}.{a.name}' if base else a.name) for a in node.names]
            for level, dotted in names:
                parts = dotted.split('.') if dotted else []
                bases = [here] if level == 1 else [os.path.join(here, *['..'] * (level - 1))] if level > 1 else roots
                for b in bases:
                    cand = os.path.join(b, *parts)
                    for f in (cand + '.py', os.path.join(cand, '__init__.py')):
                        if os.path.isfile(f):
                            todo.append(f)
    return seen


def literal(node, constants):
    if isinstance(node, ast.Attribute) and node.attr == 'value' and isinstance(node.value, ast.Attribute):
        return constants.get(node.value.attr)
    if isinstance(node, ast.Attribute):
        return constants.get(node.attr)
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    try:
        return ast.literal_eval(node)
    except Exception:
        return None


def kwarg(call, name, constants):
    for k in call.keywords:
        if k.arg == name:
            return literal(k.value, constants)
    return None


def field_description(node, constants):
    """Field(description=...) or Annotated[T, Field(description=...)] or Annotated[T, "text"]."""
    if isinstance(node, ast.Call) and getattr(node.func, 'id', getattr(node.func, 'attr', None)) == 'Field':
        return kwarg(node, 'description', constants)
    if isinstance(node, ast.Subscript) and getattr(node.value, 'id', getattr(node.value, 'attr', None)) == 'Annotated':
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else []
        for extra in items[1:]:
            d = field_description(extra, constants)
            if d:
                return d
            if isinstance(extra, ast.Constant) and isinstance(extra.value, str):
                return extra.value
    return None


def json_type(annotation):
    if annotation is None:
        return None
    if isinstance(annotation, ast.Subscript):
        head = getattr(annotation.value, 'id', getattr(annotation.value, 'attr', ''))
        if head == 'Annotated':
            return json_type(annotation.slice.elts[0] if isinstance(annotation.slice, ast.Tuple) else annotation.slice)
        if head == 'Optional':
            return json_type(annotation.slice)
        return JSON_TYPES.get(head)
    if isinstance(annotation, ast.BinOp):  # X | None
        return json_type(annotation.left)
    return JSON_TYPES.get(getattr(annotation, 'id', getattr(annotation, 'attr', '')))


def function_tool(fn, name, description, constants):
    doc = ast.get_docstring(fn, clean=True) or ''
    props, required = {}, []
    args = fn.args
    defaults = [None] * (len(args.args) - len(args.defaults)) + list(args.defaults)
    for arg, default in list(zip(args.args, defaults)) + list(zip(args.kwonlyargs, args.kw_defaults)):
        if arg.arg in ('self', 'cls', 'ctx', 'context'):
            continue
        ann = ast.unparse(arg.annotation) if arg.annotation is not None else ''
        if 'Context' in ann:
            continue
        prop = {}
        t = json_type(arg.annotation)
        if t:
            prop['type'] = t
        d = field_description(arg.annotation, constants) or (field_description(default, constants) if default is not None else None)
        if d:
            prop['description'] = d
        props[arg.arg] = prop
        if default is None:
            required.append(arg.arg)
    schema = {'type': 'object', 'properties': props}
    if required:
        schema['required'] = required
    return {'name': name or fn.name, 'description': description or inspect.cleandoc(doc), 'inputSchema': schema}


def is_tool_factory(node):
    """x.tool or x.tool(...) (FastMCP's decorator), not e.g. a tool_* helper."""
    target = node.func if isinstance(node, ast.Call) else node
    return isinstance(target, ast.Attribute) and target.attr == 'tool'


def tools_of(paths):
    trees = [ast.parse(open(p, encoding='utf-8').read()) for p in paths]
    constants, functions = {}, {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        constants[t.id] = node.value.value
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions.setdefault(node.name, node)
    # A tool defined in an except clause is a fallback for a server that failed to start.
    fallback = {id(n) for tree in trees for h in ast.walk(tree) if isinstance(h, ast.ExceptHandler)
                for n in ast.walk(h)}
    found = []
    for tree in trees:
        for node in ast.walk(tree):
            if id(node) in fallback:
                continue
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for dec in node.decorator_list:
                    if is_tool_factory(dec):
                        call = dec if isinstance(dec, ast.Call) else None
                        found.append(function_tool(node, call and kwarg(call, 'name', constants),
                                                   call and kwarg(call, 'description', constants), constants))
            elif isinstance(node, ast.Call):
                # x.tool(...)(fn)
                if isinstance(node.func, ast.Call) and is_tool_factory(node.func) and node.args and isinstance(node.args[0], ast.Name):
                    fn = functions.get(node.args[0].id)
                    if fn:
                        found.append(function_tool(fn, kwarg(node.func, 'name', constants), kwarg(node.func, 'description', constants), constants))
                # x.add_tool(fn, name=..., description=...)
                elif isinstance(node.func, ast.Attribute) and node.func.attr == 'add_tool' and node.args and isinstance(node.args[0], ast.Name):
                    fn = functions.get(node.args[0].id)
                    if fn:
                        found.append(function_tool(fn, kwarg(node, 'name', constants), kwarg(node, 'description', constants), constants))
                # Tool(name=..., description=..., inputSchema=...)
                elif getattr(node.func, 'id', getattr(node.func, 'attr', None)) == 'Tool':
                    name = kwarg(node, 'name', constants)
                    if isinstance(name, str):
                        schema = kwarg(node, 'inputSchema', constants)
                        found.append({'name': name, 'description': kwarg(node, 'description', constants) or '',
                                      'inputSchema': schema if isinstance(schema, dict) else {'type': 'object'}})
    unique = {}
    for t in found:
        unique.setdefault(t['name'], t)
    return list(unique.values())


if __name__ == '__main__':
    root, entries = sys.argv[1], sys.argv[2:]
    print(json.dumps(tools_of(module_files(root, entries)), indent=1))
