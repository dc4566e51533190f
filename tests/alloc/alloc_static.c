/* statically linked: LD_PRELOAD cannot reach it (tests/alloc/alloc_cli.sh) */
int main(void)
{
	return 0;
}
