package chat

// PlainJSON reports whether the eight bytes of x (read little-endian
// from a string or a line) are all ASCII that a JSON string holds as it
// is: none below 0x20, none a quote or a backslash, none 0x80 or above.
// (x-0x01…)&^x&0x80… is not zero exactly when a byte of x is zero;
// x-0x20… likewise when one is below 0x20. The request bodies' encoder
// and the session lines' decoder skip plain text eight bytes at a time
// with it.
func PlainJSON(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, bs := x^(ones*'"'), x^(ones*'\\')
	return (x|(x-ones*0x20)|(q-ones)&^q|(bs-ones)&^bs)&highs == 0
}
