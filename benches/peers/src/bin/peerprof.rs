use serde::de::DeserializeOwned;
use serde::Serialize;
use toon_bench::{all_inputs, with_model, Dataset, Visit};
use toon_bench_peers::{decode, encode};
struct R(usize, String, usize);
impl Visit for R {
    fn visit<T: Serialize + DeserializeOwned + 'static>(&mut self, data: &Dataset, typed: T) {
        for _ in 0..self.2 {
            if self.1 == "encode" {
                std::hint::black_box(encode(self.0, &typed).unwrap());
            } else {
                std::hint::black_box(decode::<T>(self.0, &data.toon).unwrap());
            }
        }
    }
}
fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let d = all_inputs().into_iter().find(|d| d.name == a[2]).unwrap();
    with_model(
        &d,
        &mut R(a[0].parse().unwrap(), a[1].clone(), a[3].parse().unwrap()),
    );
}
