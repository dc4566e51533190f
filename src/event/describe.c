/* perf-style one-line description of a perf_event_attr, for the CLI and
 * tests: "type=4,config=0x1cd,config1=0x40,precise_ip=2,exclude_kernel". */
#include "pmuscope/event.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The flag word follows read_format (offset 40); bit positions from
 * include/uapi/linux/perf_event.h struct perf_event_attr. */
static const struct {
	unsigned bit;
	const char *name;
} flag_bits[] = {
	{ 0, "disabled" },        { 1, "inherit" },          { 2, "pinned" },
	{ 3, "exclusive" },       { 4, "exclude_user" },     { 5, "exclude_kernel" },
	{ 6, "exclude_hv" },      { 7, "exclude_idle" },     { 8, "mmap" },
	{ 9, "comm" },            { 10, "freq" },            { 11, "inherit_stat" },
	{ 12, "enable_on_exec" }, { 13, "task" },            { 14, "watermark" },
	/* 15-16 precise_ip: printed as a number */
	{ 17, "mmap_data" },      { 18, "sample_id_all" },   { 19, "exclude_host" },
	{ 20, "exclude_guest" },  { 21, "exclude_callchain_kernel" },
	{ 22, "exclude_callchain_user" }, { 23, "mmap2" },  { 24, "comm_exec" },
	{ 25, "use_clockid" },    { 26, "context_switch" }, { 27, "write_backward" },
	{ 28, "namespaces" },     { 29, "ksymbol" },        { 30, "bpf_event" },
	{ 31, "aux_output" },     { 32, "cgroup" },         { 33, "text_poke" },
	{ 34, "build_id" },       { 35, "inherit_thread" }, { 36, "remove_on_exec" },
	{ 37, "sigtrap" },
};

#define PRECISE_SHIFT 15

struct sbuf {
	char *buf;
	size_t size, len;
};

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(struct sbuf *s, const char *fmt, ...)
{
	char tmp[96];
	va_list ap;
	int n;
	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (s->len && s->len + 1 < s->size)
		s->buf[s->len] = ',';
	if (s->len)
		s->len++;
	if (s->len < s->size) {
		size_t room = s->size - s->len;
		snprintf(s->buf + s->len, room, "%s", tmp);
	}
	s->len += (size_t)n;
	if (s->size)
		s->buf[s->len < s->size ? s->len : s->size - 1] = '\0';
}

static size_t describe(const struct perf_event_attr *attr, uint64_t config4, char *buf,
		       size_t size)
{
	struct sbuf s = { buf, size, 0 };
	uint64_t flags;

	if (size)
		buf[0] = '\0';
	memcpy(&flags, (const char *)attr + offsetof(struct perf_event_attr, read_format) +
			       sizeof(attr->read_format), sizeof(flags));
	put(&s, "type=%" PRIu32, attr->type);
	put(&s, "config=0x%" PRIx64, (uint64_t)attr->config);
	if (attr->config1)
		put(&s, "config1=0x%" PRIx64, (uint64_t)attr->config1);
	if (attr->config2)
		put(&s, "config2=0x%" PRIx64, (uint64_t)attr->config2);
	if (attr->config3)
		put(&s, "config3=0x%" PRIx64, (uint64_t)attr->config3);
	if (config4)
		put(&s, "config4=0x%" PRIx64, config4);
	if (attr->sample_period)
		put(&s, "%s=%" PRIu64, attr->freq ? "sample_freq" : "sample_period",
		    (uint64_t)attr->sample_period);
	if (attr->sample_type)
		put(&s, "sample_type=0x%" PRIx64, (uint64_t)attr->sample_type);
	if (attr->read_format)
		put(&s, "read_format=0x%" PRIx64, (uint64_t)attr->read_format);
	for (size_t i = 0; i < sizeof(flag_bits) / sizeof(flag_bits[0]); i++) {
		if (flag_bits[i].bit == PRECISE_SHIFT + 2 && attr->precise_ip)
			put(&s, "precise_ip=%u", (unsigned)attr->precise_ip);
		if (flags >> flag_bits[i].bit & 1)
			put(&s, "%s", flag_bits[i].name);
	}
	return s.len;
}

size_t pms_event_attr_describe(const struct perf_event_attr *attr, char *buf, size_t size)
{
	return describe(attr, 0, buf, size);
}

size_t pms_event_describe(const struct pms_event *ev, char *buf, size_t size)
{
	return describe(&ev->attr, ev->config4, buf, size);
}
