"""Generated code of the wire contract ``proto/arena/v1/arena.proto``.

Never edit by hand: ``python scripts/gen_proto.py`` regenerates it and
``python scripts/gen_proto.py --check`` (run in CI) fails when it is stale.

    from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
"""
