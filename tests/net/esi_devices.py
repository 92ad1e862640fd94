#!/usr/bin/env python3
"""Every <Device> of the ESI files given: one line per device with the --devices item
that picks it (FILE@TYPE:#xREVISION) and what the ESI says of it, as JSON: vendor,
product, revision, name, and the output/input bits of the PDOs it assigns to a
SyncManager. Used by test_ecat_esi_devices.sh."""
import json
import sys
import xml.etree.ElementTree as ET


def num(s):
    s = (s or "0").strip()
    return int(s[2:], 16) if s[:2] in ("#x", "#X", "0x", "0X") else int(s)


for path in sys.argv[1:]:
    root = ET.parse(path).getroot()
    vendor = num(root.find("Vendor/Id").text)
    for dev in root.findall("Descriptions/Devices/Device"):
        t = dev.find("Type")
        names = dev.findall("Name")
        name = next((n.text for n in names if n.get("LcId") == "1033"), names[0].text if names else "")
        bits = {"RxPdo": 0, "TxPdo": 0}
        for kind in bits:
            for p in dev.findall(kind):
                if p.get("Sm") is None:
                    continue             # offered, not assigned
                bits[kind] += sum(num(e.findtext("BitLen")) for e in p.findall("Entry"))
        rev = num(t.get("RevisionNo"))
        print(json.dumps({"item": "%s@%s:#x%08X" % (path, t.text.strip(), rev), "vendor": vendor,
                          "product": num(t.get("ProductCode")), "revision": rev,
                          "name": (name or "").strip(), "out_bits": bits["RxPdo"],
                          "in_bits": bits["TxPdo"]}))
