"""The Kubernetes manifests in deploy/kubernetes/ parse as YAML and carry what they need.

Usage: check_manifests.py [--xml FILE]   (run from the repository root)

Checked: a DaemonSet per node kind, selected by the torchscan.io/benchmark node label, with
Guaranteed QoS (requests equal limits, whole CPUs) and the GPU one asking for nvidia.com/gpu;
non-root pods (uid = the Containerfile's USER) with a read-only root, no privilege escalation
and no capabilities; TLS and token Secrets mounted with modes no one else can read, at the
paths the ConfigMap's configuration names; the state folder and /tmp writable; probes on the
serving port; one port number in the configuration, the DaemonSets and the headless Service;
the GPU DaemonSet equal to the CPU one but for its name, labels, image, devices and GPU; and
deploy/README.md creating the Secrets with the names and keys the DaemonSets mount.
"""

import copy
import json
import os
import re
import sys

from checklib import Checks, daemonset_config, load_yaml_documents, read_containerfile, read_text, xml_flag

K8S = "deploy/kubernetes"
NODE_LABEL = "torchscan.io/benchmark"


def one(path, kind):
    docs = [d for d in load_yaml_documents(path) if d.get("kind") == kind]
    if len(docs) != 1:
        raise ValueError(f"{path}: expected one {kind}, found {len(docs)}")
    return docs[0]


def pod_of(ds):
    return ds["spec"]["template"]["spec"]


def daemon_config(configmap, ds):
    """The configuration JSON the DaemonSet's --config names (through its configMap volume)."""
    return json.loads(daemonset_config(ds, {configmap["metadata"]["name"]: configmap})[1])


def check_selection(ds):
    meta, spec = ds["metadata"], ds["spec"]
    if ds.get("apiVersion") != "apps/v1" or ds.get("kind") != "DaemonSet":
        return "not an apps/v1 DaemonSet"
    labels = spec["template"]["metadata"]["labels"]
    if any(labels.get(k) != v for k, v in spec["selector"]["matchLabels"].items()):
        return f"selector {spec['selector']['matchLabels']} does not match the pod labels {labels}"
    if NODE_LABEL not in pod_of(ds).get("nodeSelector", {}):
        return f"{meta['name']}: nodeSelector lacks {NODE_LABEL}"
    return None


def whole_cpus(value):
    return re.fullmatch(r"[1-9][0-9]*", str(value)) is not None


def check_guaranteed(ds, gpu):
    for c in pod_of(ds)["containers"] + pod_of(ds).get("initContainers", []):
        r = c.get("resources", {})
        requests, limits = r.get("requests", {}), r.get("limits", {})
        for resource in ("cpu", "memory"):
            if resource not in limits or str(requests.get(resource)) != str(limits[resource]):
                return f"{c['name']}: {resource} requests {requests.get(resource)!r} != limits {limits.get(resource)!r}"
        if not whole_cpus(limits["cpu"]):
            return f"{c['name']}: cpu {limits['cpu']!r} is not a whole number of CPUs (the static CPU manager pins only those)"
        has_gpu = "nvidia.com/gpu" in limits
        if has_gpu != gpu:
            return f"{c['name']}: nvidia.com/gpu {'missing' if gpu else 'on a CPU DaemonSet'}"
        if gpu and (not whole_cpus(limits["nvidia.com/gpu"]) or
                    str(requests.get("nvidia.com/gpu", limits["nvidia.com/gpu"])) != str(limits["nvidia.com/gpu"])):
            return f"{c['name']}: nvidia.com/gpu must be a whole number with requests equal to limits"
    return None


def check_security(ds, image_uid):
    pod = pod_of(ds)
    sc = pod.get("securityContext", {})
    if sc.get("runAsNonRoot") is not True or not sc.get("runAsUser"):
        return "the pod must set runAsNonRoot: true and a non-zero runAsUser"
    if str(sc["runAsUser"]) != image_uid:
        return f"runAsUser {sc['runAsUser']} is not the image's USER {image_uid} (deploy/container/Containerfile)"
    for c in pod["containers"]:
        csc = c.get("securityContext", {})
        if csc.get("readOnlyRootFilesystem") is not True or csc.get("allowPrivilegeEscalation") is not False:
            return f"{c['name']}: needs readOnlyRootFilesystem: true and allowPrivilegeEscalation: false"
        if "ALL" not in csc.get("capabilities", {}).get("drop", []):
            return f"{c['name']}: capabilities must drop ALL"
    return None


def check_sandbox(ds, config):
    """Jobs run sandboxed, and the pod lets torchscand make the sandbox: the runtime's default
    seccomp profile refuses unshare, mount and pivot_root (the daemon would refuse to start)."""
    if config.get("sandbox", "namespaces") != "namespaces":
        return f"the ConfigMap's sandbox is {config.get('sandbox')!r}: a shared daemon runs jobs sandboxed"
    pod = pod_of(ds)
    for c in pod["containers"]:
        seccomp = c.get("securityContext", {}).get("seccompProfile") or pod.get("securityContext", {}).get(
            "seccompProfile", {})
        if seccomp.get("type") not in ("Unconfined", "Localhost"):
            return (f"{c['name']}: seccompProfile {seccomp.get('type')!r} refuses the sandbox's unshare and "
                    "mount: Unconfined, or a Localhost profile that allows them")
    return None


def mount_of(ds, path):
    """(volume, mount) whose mountPath holds `path`, or (None, None)."""
    volumes = {v["name"]: v for v in pod_of(ds)["volumes"]}
    best = (None, None)
    for m in pod_of(ds)["containers"][0]["volumeMounts"]:
        if (path == m["mountPath"] or path.startswith(m["mountPath"].rstrip("/") + "/")) and \
                (best[1] is None or len(m["mountPath"]) > len(best[1]["mountPath"])):
            best = (volumes.get(m["name"]), m)
    return best


def check_volumes(ds, config):
    volumes = {v["name"]: v for v in pod_of(ds)["volumes"]}
    for m in pod_of(ds)["containers"][0]["volumeMounts"]:
        if m["name"] not in volumes:
            return f"volumeMount {m['name']} has no volume"
    secrets = {}
    for v in volumes.values():
        if "secret" in v:
            mode = v["secret"].get("defaultMode", 0o644)
            if mode & 0o137:
                return f"secret volume {v['name']}: defaultMode {oct(mode)} lets others read or anyone write (use 0440)"
            secrets[v["secret"]["secretName"]] = v
    files = {"tls.cert_file": config.get("tls", {}).get("cert_file"), "tls.key_file": config.get("tls", {}).get("key_file"),
             "token_file": config.get("token_file")}
    for field, path in files.items():
        if not path:
            return f"the configuration has no {field}: TCP needs TLS and tokens"
        volume, mount = mount_of(ds, path)
        if not volume or "secret" not in volume:
            return f"{field} {path} is not inside a Secret volume"
    for path in (config["state_dir"], "/tmp"):
        volume, mount = mount_of(ds, path)
        if not volume or mount.get("readOnly") or not ("emptyDir" in volume or "hostPath" in volume):
            return f"{path} must be a writable emptyDir or hostPath mount (the root filesystem is read-only)"
    return None


def listen_ports(config):
    return {int(a.rsplit(":", 1)[1]) for a in config["listen"] if not a.startswith("unix:")}


def check_ports(ds, config, service):
    ports = listen_ports(config)
    if len(ports) != 1:
        return f"expected one TCP listen port in the configuration, found {sorted(ports)}"
    port = ports.pop()
    c = pod_of(ds)["containers"][0]
    named = {p.get("name"): p for p in c.get("ports", [])}
    grpc = named.get("grpc")
    if not grpc or grpc["containerPort"] != port or grpc.get("hostPort") != port:
        return f"containerPort/hostPort named grpc must both be {port} (the configuration's listen port)"
    for probe in ("readinessProbe", "livenessProbe"):
        target = c.get(probe, {}).get("tcpSocket", c.get(probe, {}).get("grpc", {})).get("port")
        if target not in ("grpc", port):
            return f"{probe} must probe the serving port ({port} / grpc), not {target!r}"
    sp = service["spec"]["ports"]
    if not any(p["port"] == port and p.get("targetPort") in ("grpc", port) for p in sp):
        return f"the Service exposes no port {port} targeting grpc: {sp}"
    labels = ds["spec"]["template"]["metadata"]["labels"]
    if any(labels.get(k) != v for k, v in service["spec"]["selector"].items()):
        return f"the Service selector {service['spec']['selector']} does not select these pods {labels}"
    return None


def check_headless(service):
    if service["spec"].get("clusterIP") != "None":
        return f"clusterIP is {service['spec'].get('clusterIP')!r}; a headless Service needs None"
    return None


def check_gpu_twin(cpu, gpu):
    """The GPU DaemonSet is the CPU one but for name, component label, node label value, image,
    the --device args and the GPU resource."""
    a, b = copy.deepcopy(cpu), copy.deepcopy(gpu)
    for d in (a, b):
        d["metadata"].pop("name")
        for labels in (d["metadata"]["labels"], d["spec"]["selector"]["matchLabels"], d["spec"]["template"]["metadata"]["labels"]):
            labels.pop("app.kubernetes.io/component", None)
        pod = pod_of(d)
        pod["nodeSelector"][NODE_LABEL] = "*"
        c = pod["containers"][0]
        c.pop("image")
        args = c.get("args", [])
        c["args"] = [x for i, x in enumerate(args) if x != "--device" and (i == 0 or args[i - 1] != "--device")]
        for part in ("requests", "limits"):
            c["resources"].get(part, {}).pop("nvidia.com/gpu", None)
    if a != b:
        return "daemonset-gpu.yaml differs from daemonset.yaml beyond name, labels, image, --device and the GPU"
    args = pod_of(gpu)["containers"][0]["args"]
    if not any(args[i] == "--device" and args[i + 1].startswith("cuda") for i in range(len(args) - 1)):
        return "the GPU DaemonSet passes no --device cuda..."
    if pod_of(cpu)["nodeSelector"][NODE_LABEL] == pod_of(gpu)["nodeSelector"][NODE_LABEL]:
        return "both DaemonSets select the same nodes: their hostPorts would collide"
    return None


def check_readme_secrets(cpu, config):
    """deploy/README.md creates each Secret the DaemonSet mounts, with the keys the config reads."""
    readme = read_text("deploy/README.md")
    for v in pod_of(cpu)["volumes"]:
        if "secret" not in v:
            continue
        name = v["secret"]["secretName"]
        command = re.search(r"kubectl create secret (tls|generic) " + re.escape(name) + r"\b[^\n]*", readme)
        if not command:
            return f"deploy/README.md has no 'kubectl create secret ... {name}'"
        mount = [m for m in pod_of(cpu)["containers"][0]["volumeMounts"] if m["name"] == v["name"]][0]["mountPath"]
        for path in (config["tls"]["cert_file"], config["tls"]["key_file"], config["token_file"]):
            if path.startswith(mount + "/"):
                key = path[len(mount) + 1:]
                keys = {"tls.crt", "tls.key"} if command.group(1) == "tls" else \
                    set(re.findall(r"--from-file=([^=\s]+)=", command.group(0)))
                if key not in keys:
                    return f"the config reads {path}, but the README's Secret {name} has keys {sorted(keys)}"
    return None


def image_uid():
    users = [a for _, i, a in read_containerfile("deploy/container/Containerfile") if i == "USER"]
    if not users:
        raise ValueError("deploy/container/Containerfile has no USER")
    return users[-1].split(":")[0]


def main(argv):
    xml_path = xml_flag(argv)
    checks = Checks("kubernetes_manifests_test")
    try:
        configmap = one(f"{K8S}/configmap.yaml", "ConfigMap")
        service = one(f"{K8S}/service.yaml", "Service")
        cpu = one(f"{K8S}/daemonset.yaml", "DaemonSet")
        gpu = one(f"{K8S}/daemonset-gpu.yaml", "DaemonSet")
        uid = image_uid()
        checks.check("every manifest parses as YAML with the expected kind", True)
    except Exception as e:
        checks.check("every manifest parses as YAML with the expected kind", False, f"{type(e).__name__}: {e}")
        return checks.finish(xml_path)
    checks.run("service.yaml: headless (clusterIP None)", check_headless, service)
    for name, ds, has_gpu in (("daemonset.yaml", cpu, False), ("daemonset-gpu.yaml", gpu, True)):
        try:
            config = daemon_config(configmap, ds)
        except Exception as e:
            checks.check(f"{name}: --config is a ConfigMap key", False, f"{type(e).__name__}: {e}")
            continue
        checks.check(f"{name}: --config is a ConfigMap key", True)
        checks.run(f"{name}: selects labelled nodes", check_selection, ds)
        checks.run(f"{name}: Guaranteed QoS with whole CPUs", check_guaranteed, ds, has_gpu)
        checks.run(f"{name}: non-root, read-only root, no capabilities", check_security, ds, uid)
        checks.run(f"{name}: jobs sandboxed, and seccomp lets torchscand make the sandbox", check_sandbox, ds, config)
        checks.run(f"{name}: Secrets private, TLS and tokens mounted, state writable", check_volumes, ds, config)
        checks.run(f"{name}: one port in config, DaemonSet, probes and Service", check_ports, ds, config, service)
    checks.run("daemonset-gpu.yaml: the CPU DaemonSet plus a GPU and nothing else", check_gpu_twin, cpu, gpu)
    checks.run("deploy/README.md: creates the Secrets with the mounted keys", check_readme_secrets, cpu,
               daemon_config(configmap, cpu))
    return checks.finish(xml_path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
