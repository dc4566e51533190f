/* typeprobe: the type resolver on lines "PATH BIAS IP ADDR|-|alloc" from stdin
 * (hex numbers), one result line each: status via type offset member var
 * load|store.  The ground-truth generator (gen_types.py) drives it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope/types.h"

int main(void)
{
	struct pms_typeres *r;
	if (pms_typeres_new(&r) < 0)
		return 1;
	char line[4096], path[4000], addr_s[64];
	uint64_t bias, ip;
	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "%3999s %" SCNx64 " %" SCNx64 " %63s", path, &bias, &ip, addr_s) != 4)
			continue;
		bool has = strcmp(addr_s, "-") != 0, alloc = !strcmp(addr_s, "alloc");
		uint64_t addr = has && !alloc ? strtoull(addr_s, NULL, 16) : 0;
		struct pms_type_hit h;
		/* ADDR "alloc": IP is an allocation's return address
		 * (pms_typeres_alloc_type) */
		if ((alloc ? pms_typeres_alloc_type(r, path, bias, ip, &h)
			   : pms_typeres_lookup(r, path, bias, ip, addr, has, &h)) < 0) {
			pms_typeres_free(r);
			return 1;
		}
		if (h.status == PMS_TYPE_OK)
			printf("ok %s\t%s\t%" PRId64 "\t%s\t%s\t%s\n", pms_type_via_name(h.via), h.type,
			       h.offset, h.member[0] ? h.member : "-", h.var[0] ? h.var : "-",
			       h.store ? "store" : "load");
		else
			printf("%s\n", pms_type_status_name(h.status));
	}
	pms_typeres_free(r);
	return 0;
}
