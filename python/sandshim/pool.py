"""Warm pools (docs/POOL.md): pre-booted sandboxes a Session.create(pool=...) claims."""
import json
import os
import tempfile

from .client import default_client


class Pool:
    def __init__(self, name, client=None):
        self.name = name
        self.client = client or default_client()

    @classmethod
    def define(cls, name, size, profile, low_water=None, from_snapshot=None, client=None):
        """Defines (or redefines) a pool of `size` members booted from profile (a dict), or,
        with from_snapshot, restored from that session snapshot (Session.snapshot): each claim
        then starts from its warm state. The profile must be the snapshot source's options."""
        client = client or default_client()
        doc = {"size": size, "profile": profile}
        if low_water is not None:
            doc["low_water"] = low_water
        if from_snapshot is not None:
            doc["from_snapshot"] = from_snapshot
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(doc, f)
        try:
            client.call(["pool", "define", name, f.name])
        finally:
            os.unlink(f.name)
        return cls(name, client)

    def fill(self, background=False):
        self.client.call(["pool", "fill"] + (["--background"] if background else []) + [self.name])

    def status(self):
        return self.client.json(["pool", "status", "--json", self.name])

    def drain(self, delete=False):
        self.client.call(["pool", "drain"] + (["--delete"] if delete else []) + [self.name])

    def claim(self, **create_options):
        """A session from this pool (a cold create when it is empty)."""
        from .session import Session
        return Session.create(pool=self.name, client=self.client, **create_options)
