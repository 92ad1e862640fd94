/* --metrics-listen: a tiny HTTP/1.0 server for GET /metrics (docs/metrics.md). One
 * thread of its own, one connection at a time, requests of at most MX_HTTP_MAX bytes,
 * 2 s to send one; it serves the text the reporter last rendered, so it never touches
 * the cycle and the cycle never waits on it. */
#ifndef TAKT_CLI_METRICS_HTTP_H
#define TAKT_CLI_METRICS_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <netinet/in.h>
#include <sys/socket.h>

#define MX_HTTP_MAX 2048

/* The request head in buf[0..len): 0 while incomplete (no blank line yet), else the
 * HTTP status to answer: 200 for GET (or HEAD) of /metrics (a query string allowed),
 * 404 another path, 405 another method, 400 anything not a request line
 * "METHOD SP PATH SP HTTP/1.x", 431 a head longer than MX_HTTP_MAX. *head is set for
 * HEAD. Pure: the fuzz target's subject. */
int mx_http_parse(const char *buf, size_t len, bool *head);

/* "PORT" (127.0.0.1), "ADDR:PORT" or "[ADDR6]:PORT" with a numeric address (no names
 * are looked up). 0, or -EINVAL with why in err. *explicit_any: the address is not a
 * loopback one (the caller warns: the metrics go to the network without authentication). */
int mx_http_addr(const char *spec, struct sockaddr_storage *sa, socklen_t *len,
                 bool *not_loopback, char *err, size_t errlen);

struct mx_http;
/* Bind and listen, then serve from a thread. 0 or -errno (err says what). */
int  mx_http_start(struct mx_http **out, const char *spec, char *err, size_t errlen);
/* The reporter: the text to serve from now on (copied). */
void mx_http_publish(struct mx_http *h, const char *text, size_t len);
void mx_http_stop(struct mx_http *h);

#endif
