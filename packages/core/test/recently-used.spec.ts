import { expect } from 'chai';
import { RecentlyUsed } from '@runload/core';

describe('RecentlyUsed', () => {
  it('forgets the least recently used entry past its limit: a read counts as a use, a peek does not', () => {
    const map = new RecentlyUsed<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    expect(map.get('a')).to.equal(1);
    map.set('c', 3);
    expect(map.peek('b'), 'b was used least recently').to.equal(undefined);
    expect([map.peek('a'), map.peek('c')]).to.deep.equal([1, 3]);
    expect(map.peek('a')).to.equal(1);
    map.set('d', 4);
    expect(map.peek('a'), 'peeking at a did not make it recent').to.equal(undefined);
    map.set('c', 30);
    map.set('e', 5);
    expect([map.peek('c'), map.peek('d'), map.peek('e')], 'writing c again made it recent').to.deep.equal([30, undefined, 5]);
  });
});
