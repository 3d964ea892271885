"""A document's whole outline as one nested tree (the document service's detail), with sizes and summaries.

The nodes are those of :mod:`gantha.research.outline` (same coordinates, sizes and extractive summaries),
taken breadth-first down to ``depth`` levels below the node asked for and at most ``limit`` nodes in
all: a long commentary's tree is cut (``truncated``) rather than answered in minutes.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from gantha.research.outline import OutlineNode

if TYPE_CHECKING:
    from gantha.research import Research

MAX_DEPTH = 8
MAX_NODES = 2000


class TreeNode(OutlineNode):
    nodes: list[TreeNode] = Field(default_factory=list)  # its children shown (``children`` counts them all)


class OutlineTree(BaseModel):
    root: TreeNode
    nodes: int  # nodes shown
    truncated: bool  # some nodes lie deeper than ``depth`` or past ``limit``


def outline_tree(
    research: Research, coordinate: str, depth: int = MAX_DEPTH, summaries: bool = True, limit: int = MAX_NODES
) -> OutlineTree:
    """The tree under the node ``coordinate`` names (a book, a chapter, a section or a reference)."""
    corpus, book, top = research._locate(coordinate.strip().rstrip("/"))
    show = research._shower(corpus, book, summaries)
    root = TreeNode(**show(top, summaries).model_dump())
    shown, truncated = 1, False
    todo = deque([(top, root, 0)])
    while todo:
        node, tree, level = todo.popleft()
        if not node.children:
            continue
        if level >= depth or shown + len(node.children) > limit:
            truncated = True
            continue
        for child in node.children:
            branch = TreeNode(**show(child, summaries).model_dump())
            tree.nodes.append(branch)
            todo.append((child, branch, level + 1))
        shown += len(node.children)
    return OutlineTree(root=root, nodes=shown, truncated=truncated)
