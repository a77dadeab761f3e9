extension String {
    /// The same text in storage of its own. Every copy of a string retains its storage, and threads that retain and
    /// release one storage contend for its reference count (one cache line, written by each of them in turn); a part
    /// of a run in parts works on its own copies of the strings it copies into every record (``Catalog/inOwnStorage()``,
    /// ``AppConfiguration/inOwnStorage()``). Text of up to 15 UTF-8 bytes is stored in the string itself.
    package var inOwnStorage: String { String(decoding: Array(utf8), as: UTF8.self) }
}
