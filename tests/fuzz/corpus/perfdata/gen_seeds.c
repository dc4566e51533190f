/* Regenerates the seeds in this folder from the synthetic inputs of
 * tests/perfdata/test_reader.c (not built by meson):
 *   cc -std=gnu11 -D_GNU_SOURCE -Iinclude -Isrc -Itests/support -Itests/perfdata \
 *      tests/fuzz/corpus/perfdata/gen_seeds.c tests/support/check.c \
 *      BUILD/libpmuscope.a -lzstd -ldw -ljansson -lm -o gen && ./gen tests/fuzz/corpus/perfdata */
#define main test_main
#include "test_reader.c"
#undef main
static void dump(const char *path, const void *b, size_t n){ FILE *f=fopen(path,"wb"); fwrite(b,1,n,f); fclose(f); }
int main(int argc, char **argv){
	const char *dir = argv[1]; char p[512];
	static struct enc_be e; static struct expect ex[NREC]; size_t nex;
	snprintf(p,sizeof p,"%s/file_two_attrs_features.data",dir);
	int fd=open(p,O_RDWR|O_CREAT|O_TRUNC,0644); write_file(fd,ex,&nex); close(fd);
	mk_stream(&e,false); snprintf(p,sizeof p,"%s/pipe_le.data",dir); dump(p,e.b.b,e.b.n);
	mk_stream(&e,true); snprintf(p,sizeof p,"%s/pipe_be.data",dir); dump(p,e.b.b,e.b.n);
	mk_file(&e,true); snprintf(p,sizeof p,"%s/file_be.data",dir); dump(p,e.b.b,e.b.n);
	/* compressed pipe: as in the test */
	{ static struct enc_be out; unsigned char z[4096]; size_t inner_off=16+128+32, inner_len, half=56+20, zn;
	  mk_stream(&e,false); inner_len=e.b.n-inner_off; memset(&out,0,sizeof out); bb_put(&out.b,e.b.b,inner_off);
	  for(int part=0;part<2;part++){ const unsigned char *src=e.b.b+inner_off+(part?half:0); size_t sn=part?inner_len-half:half;
	    struct perf_event_header h={part?83:81,0,0}; static const unsigned char zero[8]; zn=ZSTD_compress(z,sizeof z,src,sn,1);
	    if(!part){h.size=(uint16_t)(8+zn); bb_put(&out.b,&h,8); bb_put(&out.b,z,zn);} else {uint64_t d=zn; h.size=(uint16_t)(16+(zn+7)/8*8); bb_put(&out.b,&h,8); bb_put(&out.b,&d,8); bb_put(&out.b,z,zn); bb_put(&out.b,zero,(zn+7)/8*8-zn);} }
	  snprintf(p,sizeof p,"%s/pipe_zstd.data",dir); dump(p,out.b.b,out.b.n); }
	return 0; }
