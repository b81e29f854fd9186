/**
 * Menu tree utilities (spec §3): flat list → forest by id/parentId, disabled subtree, cycles.
 */
import { describe, expect, it } from 'vitest';
import { buildTree, type FlatNode, flattenTree, type TreeNode } from '../src/menu-tree';

interface Node extends FlatNode {
  name: string;
}

const node = (id: number, parentId: number | null, name = `n${id}`): Node => ({ id, parentId, name });

/** `id(children)` outline of a forest, with `!` after disabled nodes. */
function outline(forest: readonly TreeNode<Node>[]): string {
  return forest
    .map((n) => `${n.id}${n.disabled ? '!' : ''}${n.children.length ? `(${outline(n.children)})` : ''}`)
    .join(' ');
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

describe('buildTree', () => {
  it('answers an empty forest for an empty list', () => {
    expect(buildTree([])).toEqual([]);
  });

  it('makes nodes with parentId null or 0 roots and hangs the others under their parent', () => {
    const forest = buildTree([node(1, null), node(2, 1), node(3, 0), node(4, 3), node(5, 2)]);
    expect(outline(forest)).toBe('1(2(5)) 3(4)');
    expect(forest[0]).toEqual({
      id: 1,
      parentId: null,
      name: 'n1',
      disabled: false,
      children: [
        { id: 2, parentId: 1, name: 'n2', disabled: false, children: [expect.objectContaining({ id: 5 })] },
      ],
    });
  });

  it('keeps the input order among roots and among siblings, whatever the parent’s position', () => {
    const forest = buildTree([node(12, 1), node(3, null), node(11, 1), node(1, null), node(13, 1)]);
    expect(outline(forest)).toBe('3 1(12 11 13)');
  });

  it('makes orphans (parent not in the list) roots', () => {
    expect(outline(buildTree([node(1, null), node(2, 99), node(3, 2)]))).toBe('1 2(3)');
  });

  it('marks only the given node and its descendants disabled', () => {
    const list = [node(1, null), node(2, 1), node(3, 2), node(4, 1), node(5, null), node(6, 3)];
    expect(outline(buildTree(list, 2))).toBe('1(2!(3!(6!)) 4) 5');
    expect(outline(buildTree(list, 1))).toBe('1!(2!(3!(6!)) 4!) 5');
    expect(outline(buildTree(list, 6))).toBe('1(2(3(6!)) 4) 5');
  });

  it('marks nothing disabled for no id, null, or an id not in the list', () => {
    const list = [node(1, null), node(2, 1)];
    for (const id of [undefined, null, 42]) expect(outline(buildTree(list, id))).toBe('1(2)');
  });

  it('breaks a cycle without losing nodes: the nodes of the cycle become roots', () => {
    const list = [node(1, 2), node(2, 1), node(4, 4), node(7, null)];
    const forest = buildTree(list);
    expect(outline(forest)).toBe('1 2 4 7');
    expect(
      flattenTree(forest)
        .map((n) => n.id)
        .sort(),
    ).toEqual([1, 2, 4, 7]);
    // Disabling a node of a cycle terminates and marks it.
    expect(outline(buildTree(list, 1))).toBe('1! 2 4 7');
  });

  it('keeps every node of a list with a cycle and a subtree under it', () => {
    const list = [node(1, 2), node(2, 1), node(3, 1), node(5, 3)];
    const forest = buildTree(list, 1);
    expect(
      flattenTree(forest)
        .map((n) => n.id)
        .sort(),
    ).toEqual([1, 2, 3, 5]);
  });

  // Only the nodes on a cycle become roots; what hangs below them stays attached.
  it('descendants of a cycle node stay under it and are disabled with it', () => {
    const list = [node(1, 2), node(2, 1), node(3, 1), node(5, 3)];
    expect(outline(buildTree(list, 1))).toBe('1!(3!(5!)) 2');
  });

  it('does not modify its input and answers new node objects', () => {
    const list = deepFreeze([node(1, null), node(2, 1), node(3, 2)]);
    const before = structuredClone(list);
    const forest = buildTree(list, 2);
    expect(list).toEqual(before);
    expect(flattenTree(forest).every((n) => !list.includes(n as unknown as Node))).toBe(true);
    expect('children' in list[0]!).toBe(false);
  });

  it('keeps the other fields of each node', () => {
    const [root] = buildTree([{ id: 1, parentId: null, path: '/system', extra: { a: 1 } }]);
    expect(root).toMatchObject({ path: '/system', extra: { a: 1 } });
  });
});

describe('flattenTree', () => {
  it('lists a forest depth-first, parents before children, in order', () => {
    const forest = buildTree([node(1, null), node(2, 1), node(3, 2), node(4, 1), node(5, null), node(6, 5)]);
    expect(flattenTree(forest).map((n) => n.id)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('answers an empty list for an empty forest', () => {
    expect(flattenTree([])).toEqual([]);
  });

  it('works on any {children} shape', () => {
    const forest = [
      { k: 'a', children: [{ k: 'b', children: [] }] },
      { k: 'c', children: [] },
    ];
    expect(flattenTree(forest).map((n) => n.k)).toEqual(['a', 'b', 'c']);
  });
});
