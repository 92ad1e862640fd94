/* IP frames of the POWERLINK asynchronous phase, sans-I/O: the Ethernet/IPv4/UDP and
 * ARP frames a node sends in the async slot it was invited to with SoA
 * UnspecifiedInvite (EPSG DS 301, "Virtual Ethernet" and "SDO via UDP/IP"). SDO over
 * UDP runs on port 3819 (C_SDO_EPL_PORT); its UDP payload is the ASnd header with
 * MessageType 0x06, node IDs 0 and ServiceID 0x05 (SDO), then the same sequence and
 * command layers as over ASnd (sdo.h), as openPOWERLINK's sdoudp and Wireshark's
 * epl dissector lay it out. */
#ifndef TAKT_PLK_IPUDP_H
#define TAKT_PLK_IPUDP_H

#include <stddef.h>
#include <stdint.h>

#define PLK_SDO_UDP_PORT   3819u          /* C_SDO_EPL_PORT */
#define PLK_IP_SUBNET      0xC0A86400u    /* 192.168.100.0/24: node N is .N, the MN .240 */
#define PLK_IP_NODE(id)    (PLK_IP_SUBNET | (uint32_t)(id))
#define PLK_ETH_IPV4       0x0800u
#define PLK_ETH_ARP        0x0806u
#define PLK_UDP_SDO_HDR    4u             /* 0x06, dst 0, src 0, ServiceID 0x05 */
#define PLK_IP_UDP_HDRS    (14u + 20u + 8u)   /* Ethernet + IPv4 (no options) + UDP */
#define PLK_ARP_FRAME      42u            /* Ethernet + ARP for IPv4 over Ethernet */

/* One end of a UDP exchange: MAC, IPv4 address (host order), port. */
struct plk_ip_ep {
    uint8_t  mac[6];
    uint32_t ip;
    uint16_t port;
};

enum plk_ip_kind { PLK_IPF_ARP = 1, PLK_IPF_UDP, PLK_IPF_ICMP, PLK_IPF_OTHER_IP };

/* A decoded ARP or IPv4 frame. UDP payload pointers point into the frame. */
struct plk_ip_frame {
    enum plk_ip_kind kind;
    uint8_t  dst_mac[6], src_mac[6];
    /* ARP (IPv4 over Ethernet) */
    uint16_t arp_op;              /* 1 request, 2 reply */
    uint8_t  arp_sha[6];
    uint32_t arp_spa, arp_tpa;
    /* IPv4 (+ UDP) */
    uint32_t src_ip, dst_ip;
    uint8_t  proto;
    uint16_t src_port, dst_port;
    const uint8_t *data;          /* UDP payload; ICMP: the whole message */
    uint16_t len;
};

/* Decode an ARP or IPv4 frame: 0, -ENOMSG for other EtherTypes, -EPROTO for a bad one
 * with err naming the field, its offset, what was expected and what came. */
int plk_ip_decode(const uint8_t *f, size_t len, struct plk_ip_frame *o, char *err, size_t errlen);

/* The SDO payload (sequence layer onwards) of a UDP payload to port 3819: 0, or
 * -EPROTO when the 4-byte ASnd-style header is not 0x06 .. 0x05. */
int plk_udp_sdo_payload(const uint8_t *d, size_t len, const uint8_t **sdo, size_t *sdo_len,
                        char *err, size_t errlen);

/* Ethernet + IPv4 + UDP with payload (checksums filled, DF set, TTL 64), zero-padded to
 * 60 bytes: the frame length, or -ENOSPC. */
int plk_udp_encode(uint8_t *buf, size_t cap, const struct plk_ip_ep *src,
                   const struct plk_ip_ep *dst, uint16_t ip_id, const uint8_t *pay, size_t len);
/* The same with the SDO header in front of the SDO payload sdo. */
int plk_udp_sdo_encode(uint8_t *buf, size_t cap, const struct plk_ip_ep *src,
                       const struct plk_ip_ep *dst, uint16_t ip_id, const uint8_t *sdo, size_t len);
/* ICMP echo reply (RFC 792) to an echo request msg (the ICMP message, len bytes): its
 * identifier, sequence and data, from src to dst: the frame length, or -ENOSPC. */
int plk_icmp_echo_reply_encode(uint8_t *buf, size_t cap, const struct plk_ip_ep *src,
                               const struct plk_ip_ep *dst, uint16_t ip_id, const uint8_t *msg, size_t len);
/* ARP op (1 request: tha all-zero, Ethernet broadcast; 2 reply: to tha) from sha/spa
 * about tpa, padded to 60 bytes: the frame length, or -ENOSPC. */
int plk_arp_encode(uint8_t *buf, size_t cap, uint16_t op, const uint8_t sha[6], uint32_t spa,
                   const uint8_t tha[6], uint32_t tpa);

/* The most command-layer bytes per SDO frame over UDP that keep the IP frame within
 * the async MTU (payload bytes after the Ethernet header, 0x1F98/8). */
uint16_t plk_udp_sdo_seg_max(uint16_t async_mtu);

#endif
