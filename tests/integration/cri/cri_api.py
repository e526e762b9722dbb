"""The slice of the CRI v1 API (k8s.io/cri-api, package runtime.v1) the test client uses.

Field numbers follow the published api.proto; only the fields kubelet sets for a plain pod
and the ones the checks read are declared (unknown fields are skipped on decode). Schemas
are for wire.py.
"""
STR, INT, BOOL, BYTES, MAP = "string", "int", "bool", "bytes", "map"


def rep(kind):
    return ["repeated", kind]


POD_METADATA = {"name": (1, STR), "uid": (2, STR), "namespace": (3, STR), "attempt": (4, INT)}
NAMESPACE_OPTION = {"network": (1, INT), "pid": (2, INT), "ipc": (3, INT)}  # POD=0 CONTAINER=1 NODE=2
LINUX_SANDBOX_SECURITY = {"namespace_options": (1, NAMESPACE_OPTION)}
LINUX_POD_CONFIG = {"cgroup_parent": (1, STR), "security_context": (2, LINUX_SANDBOX_SECURITY)}
POD_CONFIG = {"metadata": (1, POD_METADATA), "hostname": (2, STR), "log_directory": (3, STR),
              "labels": (6, MAP), "annotations": (7, MAP), "linux": (8, LINUX_POD_CONFIG)}

CONTAINER_METADATA = {"name": (1, STR), "attempt": (2, INT)}
IMAGE_SPEC = {"image": (1, STR)}
KEY_VALUE = {"key": (1, STR), "value": (2, STR)}
CONTAINER_CONFIG = {"metadata": (1, CONTAINER_METADATA), "image": (2, IMAGE_SPEC), "command": (3, rep(STR)),
                    "args": (4, rep(STR)), "working_dir": (5, STR), "envs": (6, rep(KEY_VALUE)),
                    "labels": (9, MAP), "annotations": (10, MAP), "log_path": (11, STR), "tty": (14, BOOL)}

NETWORK_STATUS = {"ip": (1, STR)}
POD_STATUS = {"id": (1, STR), "metadata": (2, POD_METADATA), "state": (3, INT), "network": (5, NETWORK_STATUS),
              "runtime_handler": (9, STR)}
CONTAINER_STATUS = {"id": (1, STR), "metadata": (2, CONTAINER_METADATA), "state": (3, INT), "exit_code": (7, INT),
                    "reason": (10, STR), "message": (11, STR), "log_path": (15, STR)}
POD_SANDBOX = {"id": (1, STR), "metadata": (2, POD_METADATA), "state": (3, INT)}
CONTAINER = {"id": (1, STR), "pod_sandbox_id": (2, STR), "metadata": (3, CONTAINER_METADATA), "state": (6, INT)}

# ContainerState: the names kubelet logs; PodSandboxState likewise.
CONTAINER_STATES = {0: "CREATED", 1: "RUNNING", 2: "EXITED", 3: "UNKNOWN"}
POD_STATES = {0: "READY", 1: "NOTREADY"}

ID = {"pod_sandbox_id": (1, STR)}
CID = {"container_id": (1, STR)}
EMPTY = {}

# method -> (service, request schema, response schema)
METHODS = {
    "Version": ("RuntimeService", {"version": (1, STR)},
                {"version": (1, STR), "runtime_name": (2, STR), "runtime_version": (3, STR),
                 "runtime_api_version": (4, STR)}),
    "RunPodSandbox": ("RuntimeService", {"config": (1, POD_CONFIG), "runtime_handler": (2, STR)}, ID),
    "StopPodSandbox": ("RuntimeService", ID, EMPTY),
    "RemovePodSandbox": ("RuntimeService", ID, EMPTY),
    "PodSandboxStatus": ("RuntimeService", {"pod_sandbox_id": (1, STR), "verbose": (2, BOOL)},
                         {"status": (1, POD_STATUS), "info": (2, MAP)}),
    "ListPodSandbox": ("RuntimeService", EMPTY, {"items": (1, rep(POD_SANDBOX))}),
    "CreateContainer": ("RuntimeService",
                        {"pod_sandbox_id": (1, STR), "config": (2, CONTAINER_CONFIG), "sandbox_config": (3, POD_CONFIG)},
                        CID),
    "StartContainer": ("RuntimeService", CID, EMPTY),
    "StopContainer": ("RuntimeService", {"container_id": (1, STR), "timeout": (2, INT)}, EMPTY),
    "RemoveContainer": ("RuntimeService", CID, EMPTY),
    "ListContainers": ("RuntimeService", EMPTY, {"containers": (1, rep(CONTAINER))}),
    "ContainerStatus": ("RuntimeService", {"container_id": (1, STR), "verbose": (2, BOOL)},
                        {"status": (1, CONTAINER_STATUS), "info": (2, MAP)}),
    "ExecSync": ("RuntimeService", {"container_id": (1, STR), "cmd": (2, rep(STR)), "timeout": (3, INT)},
                 {"stdout": (1, BYTES), "stderr": (2, BYTES), "exit_code": (3, INT)}),
    "Exec": ("RuntimeService",
             {"container_id": (1, STR), "cmd": (2, rep(STR)), "tty": (3, BOOL), "stdin": (4, BOOL),
              "stdout": (5, BOOL), "stderr": (6, BOOL)},
             {"url": (1, STR)}),
    "PortForward": ("RuntimeService", {"pod_sandbox_id": (1, STR), "port": (2, rep(INT))}, {"url": (1, STR)}),
    "ImageStatus": ("ImageService", {"image": (1, IMAGE_SPEC)},
                    {"image": (1, {"id": (1, STR), "repo_tags": (2, rep(STR))})}),
}
