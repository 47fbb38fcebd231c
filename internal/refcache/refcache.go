// Package refcache shares objects that are costly to create (MPI
// communicators, in Ghost) among their users: the first Acquire of a key
// creates the object, later ones count a reference, and the Release of the
// last reference says that it is to be freed.
//
// It decides only; creating and freeing stay with the caller, which for
// collective MPI objects must make the same calls on every process that
// shares them. The cache answers deterministically from the sequence of
// calls, so processes that make the same sequence make the same decisions.
// It is not safe for concurrent use.
package refcache

// Cache maps keys to shared objects.
type Cache[K comparable, V any] struct {
	entries map[K]*entry[V]
}

type entry[V any] struct {
	v    V
	refs int
}

// New returns an empty cache.
func New[K comparable, V any]() *Cache[K, V] {
	return &Cache[K, V]{entries: map[K]*entry[V]{}}
}

// Acquire returns the object for key, calling create when there is none.
// A failed create leaves nothing behind, and its error is returned.
func (c *Cache[K, V]) Acquire(key K, create func() (V, error)) (V, error) {
	if e, ok := c.entries[key]; ok {
		e.refs++
		return e.v, nil
	}
	v, err := create()
	if err != nil {
		return v, err
	}
	c.entries[key] = &entry[V]{v: v, refs: 1}
	return v, nil
}

// Release drops one reference to key's object. last says that it was the
// last: the object, returned, is out of the cache and the caller frees it.
// Releasing a key that holds nothing returns ok false.
func (c *Cache[K, V]) Release(key K) (v V, last, ok bool) {
	e, ok := c.entries[key]
	if !ok {
		return v, false, false
	}
	if e.refs--; e.refs > 0 {
		return e.v, false, true
	}
	delete(c.entries, key)
	return e.v, true, true
}

// Len is the number of objects alive.
func (c *Cache[K, V]) Len() int { return len(c.entries) }
